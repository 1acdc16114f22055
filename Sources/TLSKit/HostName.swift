import Glibc

/// Tells IP literals from DNS names, the way certificates (RFC 5280 §4.2.1.6) and SNI (RFC 6066 §3,
/// which forbids IP literals) need.
enum HostName {
    /// The host without IPv6 brackets or a trailing dot, lowercased.
    static func normalized(_ host: String) -> String {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") {
            text = text.dropFirst().dropLast()
        }
        if text.hasSuffix("."), text.count > 1 {
            text = text.dropLast()
        }
        return text.lowercased()
    }

    /// Whether `host` is an IPv4 or IPv6 literal.
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// Whether `host` is a syntactically valid DNS name (letters, digits, `-`, `_`, a leading `*.`).
    static func isDNSName(_ host: String) -> Bool {
        guard (1...253).contains(host.utf8.count) else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.enumerated().allSatisfy { index, label in
            if index == 0 && label == "*" && labels.count > 1 { return true }
            return (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy { byte in
                    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                }
        }
    }
}
