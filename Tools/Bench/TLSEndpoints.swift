import SquallNet
import TLSKit

/// The TLS contexts of the TLS benchmarks' own ends (`https-sink`, the proxy benchmarks' clients).
enum TLSEndpoints {
    /// The host a server's leaf is for when a client sends no SNI, and the name the benchmark clients ask for.
    static let defaultHost = "localhost"

    /// A server context that presents `authority`'s leaf for the SNI host asked for (`localhost` without SNI).
    static func serverContext(authority: CertificateAuthority) throws -> TLSContext {
        try TLSContext(server: TLSServerConfiguration { name in try authority.leaf(for: name ?? defaultHost) })
    }

    /// A client context that trusts the CA certificates in `caFile`.
    static func clientContext(caFile: String) throws -> TLSContext {
        try TLSContext(client: TLSClientConfiguration(trust: .caFile(caFile)))
    }
}
