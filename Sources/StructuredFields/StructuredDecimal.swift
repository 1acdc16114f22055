/// A Decimal (RFC 8941 §3.3.2) held exactly as a whole number of thousandths: `4.5` is 4,500 thousandths.
///
/// Three fractional digits is all RFC 8941 allows, so every parsed Decimal is represented exactly. The
/// serializer rejects values with more than 12 integer digits (§4.1.5).
public struct StructuredDecimal: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The value times 1,000.
    public var thousandths: Int64

    /// A decimal of `thousandths` / 1,000.
    public init(thousandths: Int64) {
        self.thousandths = thousandths
    }

    /// `value` rounded to the nearest thousandth, ties to even as §4.1.5 requires; nil when `value` is not
    /// finite or too large for an `Int64` count of thousandths.
    public init?(_ value: Double) {
        let scaled = (value * 1000).rounded(.toNearestOrEven)
        guard let thousandths = Int64(exactly: scaled) else { return nil }
        self.thousandths = thousandths
    }

    /// The nearest `Double`.
    public var doubleValue: Double { Double(thousandths) / 1000 }

    /// The serialized digits (§4.1.5): integer part, `.`, then one to three fractional digits with trailing
    /// zeros removed, e.g. `1.5`, `-0.25`, `3.0`. No range check; `StructuredFieldSerializer` does that.
    public var description: String {
        let magnitude = thousandths.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") {
            fraction.removeLast()
        }
        return (thousandths < 0 ? "-" : "") + String(magnitude / 1000) + "." + fraction
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.thousandths < rhs.thousandths
    }
}
