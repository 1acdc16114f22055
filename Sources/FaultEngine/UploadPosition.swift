import SquallCore

/// A position inside an upload, for the `at-offset` trigger: an absolute byte offset, or a percentage of the
/// upload's length (`"40%"`, `"12.5%"`, at most six decimals, 0 to 100).
///
/// A percentage resolves to `floor(length × percent / 100)`, computed exactly in integers: 40 % of an 8 MiB
/// (8,388,608-byte) upload is byte 3,355,443 (3,355,443.2 rounded down). Rounding down means the fault never
/// fires later than the exact fraction of the upload.
public enum UploadPosition: Sendable, Hashable {
    /// An absolute offset in bytes from the upload's start.
    case bytes(Int64)
    /// `numerator / denominator` of the upload's length, where the denominator is a power of ten ≥ 100
    /// (`40%` is 40/100, `12.5%` is 125/1000).
    case fraction(numerator: Int64, denominator: Int64)

    /// Reads `"40%"`, a size string (`"3MiB"`) or a whole number of bytes given as text.
    public static func parse(_ text: String, path: String = "") throws(FaultError) -> UploadPosition {
        guard text.hasSuffix("%") else {
            do {
                return .bytes(try ByteSize.parse(text))
            } catch {
                throw FaultError(
                    .invalidSize, path: path, "\"\(text)\" is not a size or a percentage like \"40%\": \(error.reason)")
            }
        }
        return try parsePercentage(String(text.dropLast()), path: path)
    }

    private static func parsePercentage(_ number: String, path: String) throws(FaultError) -> UploadPosition {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        let digits = parts.joined()
        let decimals = parts.count == 2 ? parts[1].count : 0
        guard parts.count <= 2, !parts[0].isEmpty, decimals <= 6, parts.allSatisfy({ $0.allSatisfy(\.isNumber) }),
            parts.count == 1 || decimals > 0, let numerator = Int64(digits)
        else { throw FaultError(.invalidValue, path: path, "\"\(number)%\" is not a percentage like \"40%\"") }
        var denominator: Int64 = 100
        for _ in 0..<decimals { denominator *= 10 }
        guard numerator <= denominator else {
            throw FaultError(.invalidValue, path: path, "\"\(number)%\" is beyond 100%")
        }
        return .fraction(numerator: numerator, denominator: denominator)
    }

    /// Whether resolving needs the upload's length.
    public var needsLength: Bool {
        if case .fraction = self { return true }
        return false
    }

    /// The absolute byte offset, or nil for a percentage when the length is unknown.
    public func offset(uploadLength: Int64?) -> Int64? {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .fraction(let numerator, let denominator):
            guard let uploadLength else { return nil }
            let product = uploadLength.multipliedFullWidth(by: numerator)
            return denominator.dividingFullWidth(product).quotient
        }
    }
}
