/// A moment of the wall clock as ISO 8601 text in UTC, computed from its Unix time (no clock is read here).
///
/// ```swift
/// UTCTimestamp.text(unixMicroseconds: 1_796_608_800_123_456)   // "2026-12-07T02:00:00.123Z"
/// ```
public enum UTCTimestamp {
    /// `unixMicroseconds` (since 1970-01-01T00:00:00Z; negative before it) as `YYYY-MM-DDThh:mm:ss.sssZ` with
    /// `fractionDigits` (0 to 6) of the second, truncated: 3 to the millisecond (HAR), 6 to the microsecond (the
    /// server's log); the proleptic Gregorian calendar.
    public static func text(unixMicroseconds: Int64, fractionDigits: Int = 3) -> String {
        precondition((0...6).contains(fractionDigits), "a timestamp has 0 to 6 digits of the second")
        let microsecondsPerDay: Int64 = 86_400_000_000
        var days = unixMicroseconds / microsecondsPerDay
        var rest = unixMicroseconds % microsecondsPerDay
        if rest < 0 {
            rest += microsecondsPerDay
            days -= 1
        }
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let seconds = rest / 1_000_000
        var scale: Int64 = 1
        for _ in fractionDigits..<6 { scale *= 10 }
        let fraction = fractionDigits == 0 ? "" : "." + padded(rest % 1_000_000 / scale, fractionDigits)
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(seconds / 3600, 2))"
            + ":\(padded(seconds % 3600 / 60, 2)):\(padded(seconds % 60, 2))\(fraction)Z"
    }

    /// The year, month (1…12) and day (1…31) of a count of days since 1970-01-01, by counting 400-year eras of
    /// 146,097 days from 0000-03-01 (so that the leap day ends a year).
    static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
