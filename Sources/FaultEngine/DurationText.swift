/// Durations as Squall writes them in scenario files and on the command line: a non-negative whole number with
/// a unit — `us` (or `µs`), `ms`, `s`, `m` or `h` — such as `250ms`, `2s` or `1m`. A bare number is an error, so a
/// unit is never guessed.
public enum DurationText {
    private static let units: [(suffix: String, microseconds: Int64)] = [
        ("us", 1), ("µs", 1), ("ms", 1000), ("s", 1_000_000), ("m", 60_000_000), ("h", 3_600_000_000),
    ]

    /// The duration `text` stands for; `path` names where it came from in error messages.
    public static func parse(_ text: String, path: String = "") throws(FaultError) -> Duration {
        let unit = units.first { text.hasSuffix($0.suffix) }
        guard let unit else {
            throw FaultError(.invalidDuration, path: path, "\"\(text)\" is not a duration: expected e.g. \"250ms\"")
        }
        let digits = text.dropLast(unit.suffix.count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits), value >= 0
        else {
            throw FaultError(.invalidDuration, path: path, "\"\(text)\" is not a duration: expected e.g. \"250ms\"")
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: unit.microseconds)
        guard !overflow else { throw FaultError(.invalidDuration, path: path, "\"\(text)\" is too long") }
        return .microseconds(product)
    }
}
