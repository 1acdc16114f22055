import SquallNet

/// Where the upload benchmarks send requests: the base URL `squall server` prints on its first line.
///
/// Only plain `http://HOST:PORT` URLs (an optional trailing `/`): the benchmarks measure the server, not TLS.
struct UploadTarget {
    /// The address to connect to.
    let address: SocketAddress
    /// The `Host` field value (RFC 9110 §7.2): the URL's authority as written.
    let authority: String

    init(url: String) throws {
        let scheme = "http://"
        guard url.hasPrefix(scheme) else {
            throw BenchError("--url must be http://HOST:PORT (as `squall server` prints it), not '\(url)'")
        }
        var rest = url.dropFirst(scheme.count)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/") else {
            throw BenchError("--url must have no path: '\(url)'")
        }
        self.authority = String(rest)
        do {
            self.address = try SocketAddress(parsing: authority)
        } catch {
            throw BenchError("--url '\(url)': \(error)")
        }
    }
}
