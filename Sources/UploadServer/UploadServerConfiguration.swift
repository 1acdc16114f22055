import ResumableUpload
import SquallNet

/// How an `UploadServer` listens, stores and applies the resumable-upload rules.
public struct UploadServerConfiguration: Sendable {
    /// The address to listen on. Default `127.0.0.1:0` (a free port; `UploadServer.url` has the real one).
    public var listenAddress: SocketAddress
    /// The folder of the local CA that mints a leaf per SNI name (`127.0.0.1` when the client sends none); the
    /// CA is created there if missing. Default `nil`: plain HTTP.
    public var certificateAuthorityDirectory: String?
    /// The upload store's folder. Default `nil`: a fresh temporary folder made by the store
    /// (`UploadServer.storeDirectory`).
    public var storeDirectory: String?
    /// The resumable-upload rules: creation path, interop versions, limits, resumability, progress policy.
    /// Default: `UploadProtocolConfiguration()` (every interop version 3 … 10, no limits, a progress 104 every MiB,
    /// at most 3 per request, at least 1 s apart).
    public var uploadProtocol: UploadProtocolConfiguration
    /// What the server allows its peers (`--head-timeout`, `--idle-timeout`, `--max-connections`). Default
    /// `UploadServerConfiguration.defaultLimits`: a first head whole within 10 s of the accept (TLS included, then each
    /// later head within 10 s of its first byte; else 408), 60 s of silence between requests (the connection then
    /// closes quietly) and while a body streams (the body then counts as interrupted; its bytes stay), and 1024
    /// connections at once (one more gets 503).
    public var limits: ListenerLimits
    /// Bearer-token authentication (`--auth`). Default `nil`: every request is served anonymously.
    public var authentication: AuthenticationConfiguration?
    /// How long completed uploads and the tombstones of cancelled ones are kept, in seconds, so that a client that
    /// lost a final response can still learn the outcome with HEAD. Default one day.
    public var completedRetention: Int64
    /// A file the server appends its request log to, one JSON object per line (`ServerLog`; `--log`): start,
    /// each request head, each final response, each interrupted body, stop. Default `nil`: no log.
    public var logPath: String?
    /// A defect, for negative controls only (`squall explore`'s tests; `squall server --defect-forget-uploads`):
    /// every upload in the store is deleted when the server starts, as a server that loses its state across a
    /// restart. Default false.
    public var defectForgetsUploadsAtStart = false
    /// Whether HTTP/2 is served too (`--http2 on`): offered by ALPN (`h2` before `http/1.1`) over TLS, and taken with
    /// prior knowledge over cleartext (a connection that begins with the HTTP/2 preface). Each stream is one request
    /// on a thread of its own; at most 100 streams at once per connection, a 1 MiB window each. Default false.
    public var http2 = false

    public init(
        listenAddress: SocketAddress? = nil,
        certificateAuthorityDirectory: String? = nil,
        storeDirectory: String? = nil,
        uploadProtocol: UploadProtocolConfiguration = UploadProtocolConfiguration(),
        limits: ListenerLimits = UploadServerConfiguration.defaultLimits,
        authentication: AuthenticationConfiguration? = nil,
        completedRetention: Int64 = 86_400,
        logPath: String? = nil
    ) {
        self.listenAddress = listenAddress ?? Self.loopbackAnyPort
        self.certificateAuthorityDirectory = certificateAuthorityDirectory
        self.storeDirectory = storeDirectory
        self.uploadProtocol = uploadProtocol
        self.limits = limits
        self.authentication = authentication
        self.completedRetention = completedRetention
        self.logPath = logPath
    }

    /// The server's limits unless told otherwise. 10 s for a head: far more than any client on a working network
    /// needs, and as long as a slow or silent peer may hold a connection before it is answered 408. 60 s idle:
    /// a client that reuses a pooled connection within a minute finds it open, a body paused by a stalled network has
    /// a minute to resume, and an abandoned connection goes within a minute. 1024 connections:
    /// each costs a thread and about 100 KiB (its 64 KiB read buffer, TLS state), so about 100 MiB at the limit,
    /// well within a `ulimit -n` of 20000; 4 times the old fixed 256, which 300 slow peers filled.
    public static let defaultLimits = ListenerLimits(
        headTimeout: .seconds(10), idleTimeout: .seconds(60), maximumConnections: 1024)

    /// `127.0.0.1:0`.
    static var loopbackAnyPort: SocketAddress {
        // A numeric IPv4 literal always parses.
        try! SocketAddress(host: "127.0.0.1", port: 0)
    }
}

/// Bearer-token authentication of the reference server (RFC 6750).
///
/// Clients get a token from `POST /_squall/token` and send `Authorization: Bearer <token>` on every upload
/// request; a missing, invalid or expired token gets 401 with `WWW-Authenticate`. Each upload belongs to the
/// principal that created it: to another principal it does not exist (404).
public struct AuthenticationConfiguration: Sendable, Equatable {
    /// How long a token is accepted after it is issued, in seconds (`--token-ttl`). Default one hour.
    public var tokenLifetime: Int64
    /// The realm named in `WWW-Authenticate`. Default `squall`.
    public var realm: String

    public init(tokenLifetime: Int64 = 3600, realm: String = "squall") {
        self.tokenLifetime = tokenLifetime
        self.realm = realm
    }
}
