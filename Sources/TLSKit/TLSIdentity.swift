import COpenSSL

/// What a TLS endpoint presents: a certificate chain (leaf first, then intermediates or the CA) and the
/// leaf's private key.
public final class TLSIdentity: Sendable {
    /// The chain, leaf first; never empty.
    public let chain: [TLSCertificate]
    public let privateKey: TLSPrivateKey

    /// Pairs a chain with its key; fails when the chain is empty or the key does not match the leaf.
    public init(chain: [TLSCertificate], privateKey: TLSPrivateKey) throws {
        guard let leaf = chain.first else {
            throw TLSError(.certificate, "an identity needs at least one certificate")
        }
        guard X509_check_private_key(leaf.x509, privateKey.pkey) == 1 else {
            throw TLSError.openSSL(.certificate, "the private key does not match certificate '\(leaf.subject)'")
        }
        self.chain = chain
        self.privateKey = privateKey
    }

    /// Parses a PEM chain and a PEM key.
    public convenience init(certificatePEM: String, privateKeyPEM: String) throws {
        try self.init(
            chain: TLSCertificate.chain(pem: certificatePEM),
            privateKey: TLSPrivateKey(pem: privateKeyPEM))
    }

    /// Loads a PEM chain file and a PEM key file.
    public static func load(certificatePath: String, keyPath: String) throws -> TLSIdentity {
        try TLSIdentity(
            certificatePEM: SecureFile.readText(certificatePath),
            privateKeyPEM: SecureFile.readText(keyPath))
    }

    /// The end-entity certificate.
    public var leaf: TLSCertificate { chain[0] }

    /// The whole chain as concatenated PEM blocks, leaf first.
    public var certificatePEM: String {
        chain.map(\.pem).joined()
    }

    /// The private key as unencrypted PKCS#8 PEM.
    public var privateKeyPEM: String {
        privateKey.pem
    }
}
