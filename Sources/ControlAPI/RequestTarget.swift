/// An origin-form request-target split for routing (RFC 9112 §3.2.1, RFC 3986 §3.3–3.4): the path's segments,
/// percent-decoded, and the query's `name=value` pairs.
struct RequestTarget: Sendable {
    /// The path before any `?`, as sent.
    var path: String
    /// The non-empty path segments, percent-decoded (`/squall/faults/slow%20down` → `squall`, `faults`,
    /// `slow down`). A segment whose escapes are malformed is kept as sent.
    var segments: [String]
    /// The query's pairs in order, percent-decoded (`+` is left alone); a pair without `=` has an empty value.
    var query: [(name: String, value: String)]

    init(_ target: String) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts.first ?? "")
        segments = path.split(separator: "/").map { Self.percentDecoded($0) ?? String($0) }
        query = (parts.count > 1 ? parts[1] : "").split(separator: "&").map { pair in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = halves.count > 1 ? halves[1] : ""
            return (Self.percentDecoded(halves[0]) ?? String(halves[0]), Self.percentDecoded(value) ?? String(value))
        }
    }

    /// The value of the first query pair named `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// `text` with `%XX` escapes decoded as UTF-8; nil when an escape is malformed or the bytes are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
