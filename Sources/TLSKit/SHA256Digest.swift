import COpenSSL

/// A streaming SHA-256 (FIPS 180-4) through OpenSSL's EVP interface: feed any number of chunks, then
/// `finalize()`. Used to prove that bytes arrived intact without holding them.
public final class SHA256Digest {
    private let context: OpaquePointer
    private var finished = false

    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL cannot start a SHA-256 digest (out of memory)")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Digest.update after finalize")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest. The object cannot be updated afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "SHA256Digest.finalize called twice")
        finished = true
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// The digest of `bytes`, as lowercase hex.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        let digest = SHA256Digest()
        digest.update(bytes)
        return hexString(digest.finalize())
    }

    /// Lowercase hex of a digest.
    public static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
