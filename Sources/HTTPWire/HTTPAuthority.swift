/// The parts of an authority (RFC 3986 §3.2.2) as a URL or a `Host` field carries it: `host`, `host:port`, `[v6]`
/// or `[v6]:port`. Only split, never checked: the caller says what a bad host or port means to it.
public enum HTTPAuthority {
    /// The host (an IPv6 literal without its brackets) and the port's text after the colon, when there is one.
    public static func split(_ authority: Substring) -> (host: Substring, port: Substring?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let after = authority[authority.index(after: close)...]
            return (
                authority[authority.index(after: authority.startIndex)..<close],
                after.hasPrefix(":") ? after.dropFirst() : nil
            )
        }
        if let colon = authority.lastIndex(of: ":") {
            return (authority[..<colon], authority[authority.index(after: colon)...])
        }
        return (authority, nil)
    }
}
