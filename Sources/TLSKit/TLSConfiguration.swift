import COpenSSL

/// A TLS protocol version this library speaks.
public enum TLSVersion: Int32, Sendable, Comparable, CaseIterable {
    /// TLS 1.2 (RFC 5246).
    case tls12 = 0x0303
    /// TLS 1.3 (RFC 8446).
    case tls13 = 0x0304

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Which certificates a client accepts from servers.
public enum TLSTrust: Sendable {
    /// The system's default roots (OpenSSL's default paths, e.g. `/etc/ssl/certs`).
    case systemDefault
    /// The CA certificates in a PEM file, e.g. a `CertificateAuthority`'s `certificatePath`.
    case caFile(String)
    /// These CA certificates.
    case certificates([TLSCertificate])
    /// Anything: no chain or host name checks. For tests and `--insecure` only.
    case insecure
}

/// How a server context behaves. Defaults: TLS 1.2 to 1.3, ALPN `http/1.1`, no key log.
public struct TLSServerConfiguration: Sendable {
    /// Chooses the identity for each handshake from the SNI host name the client sent (nil when it sent
    /// none, e.g. when it connected to an IP literal). A thrown error aborts that handshake.
    public var identityProvider: @Sendable (String?) throws -> TLSIdentity
    /// The lowest version accepted. Default `.tls12`.
    public var minimumVersion: TLSVersion = .tls12
    /// The highest version accepted. Default `.tls13`.
    public var maximumVersion: TLSVersion = .tls13
    /// ALPN protocols (RFC 7301) in the server's order of preference; the first one the client also
    /// offers is selected, and none is when there is no overlap. Default `["http/1.1"]`; empty disables ALPN.
    public var alpn: [String] = ["http/1.1"]
    /// Where to append the session secrets. Default nil.
    public var keyLog: KeyLog?

    /// A server that presents `identity` whatever the client asks for.
    public init(identity: TLSIdentity) {
        self.identityProvider = { _ in identity }
    }

    /// A server that picks its identity per SNI host name (the chaos proxy mints a leaf per host).
    public init(identityProvider: @escaping @Sendable (String?) throws -> TLSIdentity) {
        self.identityProvider = identityProvider
    }
}

/// How a client context behaves. Defaults: system roots, TLS 1.2 to 1.3, ALPN `http/1.1`, no key log.
public struct TLSClientConfiguration: Sendable {
    /// Which server certificates are accepted. Default `.systemDefault`.
    public var trust: TLSTrust
    /// The lowest version offered. Default `.tls12`.
    public var minimumVersion: TLSVersion = .tls12
    /// The highest version offered. Default `.tls13`.
    public var maximumVersion: TLSVersion = .tls13
    /// ALPN protocols offered, in order of preference. Default `["http/1.1"]`; empty sends no ALPN.
    public var alpn: [String] = ["http/1.1"]
    /// Where to append the session secrets. Default nil.
    public var keyLog: KeyLog?

    public init(trust: TLSTrust = .systemDefault) {
        self.trust = trust
    }
}
