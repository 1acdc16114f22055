import COpenSSL

/// A streaming SHA-256 or SHA-512 (FIPS 180-4) through OpenSSL's EVP interface: feed any number of chunks, then
/// `finalize()`. Used to prove that bytes arrived intact without holding them, and for the RFC 9530 digest fields.
public final class MessageDigest {
    /// The hash functions offered: the two RFC 9530 registers as "Active".
    public enum Algorithm: Sendable, Hashable, CaseIterable {
        case sha256
        case sha512

        /// The digest's length in bytes.
        public var byteCount: Int {
            switch self {
            case .sha256: 32
            case .sha512: 64
            }
        }
    }

    public let algorithm: Algorithm
    private let context: OpaquePointer
    private var finished = false

    public init(_ algorithm: Algorithm) {
        let method =
            switch algorithm {
            case .sha256: EVP_sha256()
            case .sha512: EVP_sha512()
            }
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, method, nil) == 1 else {
            fatalError("OpenSSL cannot start a \(algorithm) digest (out of memory)")
        }
        self.algorithm = algorithm
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "MessageDigest.update after finalize")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { update($0) }
    }

    /// The digest of the bytes so far, leaving this one to go on (a copy of the state is finalized).
    public func current() -> [UInt8] {
        precondition(!finished, "MessageDigest.current after finalize")
        let copy = MessageDigest(algorithm)
        guard EVP_MD_CTX_copy_ex(copy.context, context) == 1 else {
            fatalError("OpenSSL cannot copy a \(algorithm) digest (out of memory)")
        }
        return copy.finalize()
    }

    /// The digest, `algorithm.byteCount` bytes. The object cannot be updated afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "MessageDigest.finalize called twice")
        finished = true
        var digest = [UInt8](repeating: 0, count: algorithm.byteCount)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// The digest of `bytes` with `algorithm`.
    public static func digest(of bytes: some Sequence<UInt8>, _ algorithm: Algorithm) -> [UInt8] {
        let digest = MessageDigest(algorithm)
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-256 of `bytes`, as lowercase hex.
    public static func hex(of bytes: some Sequence<UInt8>) -> String {
        hexString(digest(of: bytes, .sha256))
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
