/// The one duration grammar of Squall, used by scenario files, fault JSON, the control API and every CLI flag: a
/// whole number of 0 or more followed by a unit, with nothing between them.
///
/// | unit | meaning |
/// |------|---------|
/// | `us` (or `µs`) | microseconds |
/// | `ms` | milliseconds |
/// | `s` | seconds |
/// | `m` | minutes |
/// | `h` | hours |
/// | `d` | days (24 h) |
///
/// `250ms`, `2s`, `1m`, `1d`. A bare number is an error, so a unit is never guessed, and decimals are not
/// accepted (`1.5s` is written `1500ms`): every duration is an exact count of microseconds in 64 bits.
public enum DurationText {
    /// Why a text is not a duration.
    public enum Failure: Error, Equatable, Sendable {
        /// No whole number before the unit (`ms`, `1.5s`, `+2s`, `٣s`, empty).
        case notAWholeNumber
        /// A number without a unit (`250`).
        case missingUnit
        /// A unit outside the grammar (`5w`, `2sec`, `2 s`).
        case unknownUnit(String)
        /// A minus sign (`-1s`).
        case negative
        /// More microseconds than 64 bits hold.
        case tooLarge

        /// What is wrong, for "…, not '1.5s': <reason>".
        public var reason: String {
            switch self {
            case .notAWholeNumber: "a duration is a whole number with a unit (\(DurationText.unitList)), such as 250ms"
            case .missingUnit: "the unit is missing; add one of \(DurationText.unitList)"
            case .unknownUnit(let unit): "the unit \"\(unit)\" is not one of \(DurationText.unitList)"
            case .negative: "a duration is 0 or more"
            case .tooLarge: "it does not fit in 64 bits of microseconds"
            }
        }
    }

    /// The accepted units, for messages.
    public static let unitList = "us, ms, s, m, h, d"

    private static let units: [String: Int64] = [
        "us": 1, "µs": 1, "ms": 1000, "s": 1_000_000, "m": 60_000_000, "h": 3_600_000_000, "d": 86_400_000_000,
    ]

    /// The duration `text` stands for.
    public static func parse(_ text: String) throws(Failure) -> Duration {
        let (number, unit) = NumberWithUnit.split(text)
        if number.hasPrefix("-"), number.count > 1, number.dropFirst().allSatisfy(NumberWithUnit.isDigit) {
            throw .negative
        }
        guard !number.isEmpty, number.allSatisfy(NumberWithUnit.isDigit) else { throw .notAWholeNumber }
        guard !unit.isEmpty else { throw .missingUnit }
        guard let factor = units[unit] else { throw .unknownUnit(unit) }
        guard let value = Int64(number) else { throw .tooLarge }
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw .tooLarge }
        return .microseconds(product)
    }

    /// `duration` with the largest unit that keeps it exact (`"2s"`, `"250ms"`, `"1m"`, `"1d"`, `"1500us"`), the
    /// inverse of `parse`; nil for a negative duration or one finer than a microsecond.
    public static func format(_ duration: Duration) -> String? {
        let (seconds, attoseconds) = duration.components
        let perMicrosecond: Int64 = 1_000_000_000_000
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard seconds >= 0, attoseconds >= 0, attoseconds % perMicrosecond == 0, !overflow else { return nil }
        let microseconds = scaled + attoseconds / perMicrosecond
        let largestFirst: [(suffix: String, microseconds: Int64)] = [
            ("d", 86_400_000_000), ("h", 3_600_000_000), ("m", 60_000_000), ("s", 1_000_000), ("ms", 1000),
        ]
        for unit in largestFirst where microseconds != 0 && microseconds % unit.microseconds == 0 {
            return "\(microseconds / unit.microseconds)\(unit.suffix)"
        }
        return microseconds == 0 ? "0ms" : "\(microseconds)us"
    }
}

extension DurationText {
    /// `duration` in seconds with `digits` (0…18) decimals, rounded half up, for people: `"1.23"`, `"-0.500"`.
    /// Unlike `format`, not part of the grammar (no unit, decimals): the reports and the verdicts' evidence.
    public static func seconds(_ duration: Duration, digits: Int) -> String {
        let negative = duration < .zero
        let (whole, atto) = (negative ? .zero - duration : duration).components
        let unit = (0..<digits).reduce(Int64(1)) { value, _ in value * 10 }
        let step = 1_000_000_000_000_000_000 / unit
        let scaled = whole * unit + (atto + step / 2) / step
        let sign = negative && scaled > 0 ? "-" : ""
        guard digits > 0 else { return "\(sign)\(scaled)" }
        let fraction = String(scaled % unit)
        return "\(sign)\(scaled / unit).\(String(repeating: "0", count: digits - fraction.count))\(fraction)"
    }

    /// `"71 ms"`, `"5 s"`, `"1.5 s"`: whole milliseconds under a second, else seconds, for sentences.
    public static func spoken(_ duration: Duration) -> String {
        let milliseconds = Int64(duration / .milliseconds(1))
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return seconds(.milliseconds(milliseconds), digits: 3).replacing(/0+$/, with: "") + " s"
    }
}

/// Splits `"512KiB"` into `"512"` and `"KiB"`: the number is the leading run of ASCII digits, signs and points.
enum NumberWithUnit {
    static func split(_ text: String) -> (number: Substring, unit: String) {
        let numberEnd = text.firstIndex { !isNumberCharacter($0) } ?? text.endIndex
        return (text[..<numberEnd], String(text[numberEnd...]))
    }

    static func isDigit(_ character: Character) -> Bool { character >= "0" && character <= "9" }

    private static func isNumberCharacter(_ character: Character) -> Bool {
        isDigit(character) || character == "-" || character == "+" || character == "."
    }
}
