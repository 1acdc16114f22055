import HTTPWire
import ResumableUpload

/// Which connections and requests a fault applies to; every criterion given must hold, and an empty match
/// matches everything.
///
/// Scenario JSON (every key optional):
/// ```json
/// {"method": "PATCH", "path": "/uploads/*", "header": {"name": "Authorization", "value": "Bearer *"},
///  "interop": 6, "nth-connection": 2, "nth-request": 1}
/// ```
/// `path` is a `Glob` over the request-target's path (before any `?`); `header` matches when some field line
/// with that name (any case) has a value matching the glob; `interop` compares the request's
/// `Upload-Draft-Interop-Version`; `nth-connection` counts connections from 1 as the proxy accepted them;
/// `nth-request` counts, from 1 and across connections, the requests that met every other criterion.
public struct FaultMatch: Sendable, Hashable {
    public var method: HTTPMethod?
    public var path: Glob?
    public var header: HeaderMatch?
    public var interop: Int?
    public var nthConnection: Int?
    public var nthRequest: Int?

    public init(
        method: HTTPMethod? = nil, path: Glob? = nil, header: HeaderMatch? = nil, interop: Int? = nil,
        nthConnection: Int? = nil, nthRequest: Int? = nil
    ) {
        self.method = method
        self.path = path
        self.header = header
        self.interop = interop
        self.nthConnection = nthConnection
        self.nthRequest = nthRequest
    }

    /// Whether any criterion looks at a request (so the match can only be judged on a request head).
    public var needsRequest: Bool {
        method != nil || path != nil || header != nil || interop != nil || nthRequest != nil
    }

    /// Whether a request meets the method, path, header and interop criteria (the counters are the engine's).
    public func matches(_ head: RequestHead) -> Bool {
        if let method, head.method != method { return false }
        if let path, !path.matches(String(head.target.prefix { $0 != "?" })) { return false }
        if let header, !head.fields.values(for: header.name).contains(where: header.value.matches) { return false }
        if let interop, InteropVersion(fields: head.fields)?.rawValue != interop { return false }
        return true
    }
}

/// A header criterion: a field name (case-insensitive) and a glob over its value.
public struct HeaderMatch: Sendable, Hashable {
    public var name: String
    public var value: Glob

    public init(name: String, value: Glob = Glob("*")) {
        self.name = name
        self.value = value
    }
}
