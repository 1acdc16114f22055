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
    /// The resumable-upload rules: creation path, interop versions, limits, resumability, progress interval.
    /// Default: `UploadProtocolConfiguration()` (every interop version 3 … 8, no limits, 104 progress every MiB).
    public var uploadProtocol: UploadProtocolConfiguration
    /// How long a request head may take from its first byte (and a TLS handshake from the connection's start):
    /// a slower head gets 408 and the connection closes. Default 10 s.
    public var headTimeout: Duration
    /// How long a connection may stay silent: between requests (the connection then closes quietly), and while
    /// a body streams (the body then counts as interrupted; its bytes stay). Default 60 s.
    public var idleTimeout: Duration
    /// Most connections served at once; more wait in the listen queue. Default 256.
    public var maximumConnections: Int

    public init(
        listenAddress: SocketAddress? = nil,
        certificateAuthorityDirectory: String? = nil,
        storeDirectory: String? = nil,
        uploadProtocol: UploadProtocolConfiguration = UploadProtocolConfiguration(),
        headTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maximumConnections: Int = 256
    ) {
        self.listenAddress = listenAddress ?? Self.loopbackAnyPort
        self.certificateAuthorityDirectory = certificateAuthorityDirectory
        self.storeDirectory = storeDirectory
        self.uploadProtocol = uploadProtocol
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }

    /// `127.0.0.1:0`.
    static var loopbackAnyPort: SocketAddress {
        // A numeric IPv4 literal always parses.
        try! SocketAddress(host: "127.0.0.1", port: 0)
    }
}
