/// An `http` or `https` URL split into what a connection and a request line need (RFC 9110 §4.2).
///
/// ```swift
/// let url = try HTTPURL("https://127.0.0.1:8443/upload")
/// url.endpoint                                  // https 127.0.0.1:8443
/// try url.resolving("/upload/abc").description  // https://127.0.0.1:8443/upload/abc
/// ```
/// No user info, no IPv6 literals beyond `[…]` hosts kept as written, no percent-decoding: the path and query
/// are sent as given.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// Where a connection goes: scheme, host and port.
    public var endpoint: HTTPEndpoint
    /// The origin-form request target: path and query, at least `/`.
    public var target: String

    /// Parses an absolute `http://` or `https://` URL; the port defaults to 80 or 443.
    public init(_ text: String) throws(TransferError) {
        let lowered = text.lowercased()
        let secure: Bool
        if lowered.hasPrefix("https://") {
            secure = true
        } else if lowered.hasPrefix("http://") {
            secure = false
        } else {
            throw TransferError(.invalidRequest, "'\(text)' is not an http or https URL")
        }
        let rest = text.dropFirst(secure ? 8 : 7)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = rest[authorityEnd...]
        let (host, port) = try Self.split(authority: authority, defaultPort: secure ? 443 : 80, in: text)
        self.endpoint = HTTPEndpoint(secure: secure, host: host, port: port)
        self.target = path.isEmpty ? "/" : path.hasPrefix("?") ? "/" + path : String(path)
    }

    public init(endpoint: HTTPEndpoint, target: String) {
        self.endpoint = endpoint
        self.target = target
    }

    /// `reference` (an absolute URL, or an absolute path on this URL's endpoint) as a URL.
    public func resolving(_ reference: String) throws(TransferError) -> HTTPURL {
        if reference.hasPrefix("/") && !reference.hasPrefix("//") {
            return HTTPURL(endpoint: endpoint, target: reference)
        }
        return try HTTPURL(reference)
    }

    public var description: String { endpoint.description + target }

    private static func split(
        authority: Substring, defaultPort: UInt16, in text: String
    ) throws(TransferError) -> (String, UInt16) {
        guard !authority.isEmpty, !authority.contains("@") else {
            throw TransferError(.invalidRequest, "'\(text)' has no usable host")
        }
        let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map(authority.index(after:)) : nil
        let colon = authority[(hostEnd ?? authority.startIndex)...].lastIndex(of: ":")
        guard let colon else { return (String(authority), defaultPort) }
        guard let port = UInt16(authority[authority.index(after: colon)...]), port > 0 else {
            throw TransferError(.invalidRequest, "'\(text)' has an invalid port")
        }
        return (String(authority[..<colon]), port)
    }
}

/// The scheme, host and port a connection is opened to; connections are reused per endpoint.
public struct HTTPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Whether the connection uses TLS (`https`).
    public var secure: Bool
    public var host: String
    public var port: UInt16

    public init(secure: Bool, host: String, port: UInt16) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// The `Host` field value: the host, and the port unless it is the scheme's default.
    public var authority: String {
        port == (secure ? 443 : 80) ? host : "\(host):\(port)"
    }

    public var description: String { (secure ? "https://" : "http://") + authority }
}
