import COpenSSL

/// A private key (an owned `EVP_PKEY*`, freed on deinit). Keys are immutable once made, so one can be
/// shared across threads.
public final class TLSPrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    init(taking pkey: OpaquePointer) {
        self.pkey = pkey
    }

    deinit {
        EVP_PKEY_free(pkey)
    }

    /// Generates a fresh EC key on the NIST P-256 curve (prime256v1).
    public static func generateP256() throws -> TLSPrivateKey {
        guard let pkey = shim_EVP_EC_gen("P-256") else {
            throw TLSError.openSSL(.keyGeneration, "generating a P-256 key")
        }
        return TLSPrivateKey(taking: pkey)
    }

    /// Parses a PEM private key (PKCS#8 `PRIVATE KEY`, or the traditional `EC`/`RSA PRIVATE KEY` forms).
    public convenience init(pem: String) throws {
        let source = MemoryBIO(text: pem)
        guard let pkey = PEM_read_bio_PrivateKey(source.bio, nil, nil, nil) else {
            throw TLSError.openSSL(.keyGeneration, "parsing a PEM private key")
        }
        self.init(taking: pkey)
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). Keep it out of logs.
    public var pem: String {
        MemoryBIO.capture { PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }
    }
}
