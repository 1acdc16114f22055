/// HMAC with SHA-256 (RFC 2104, FIPS 198-1): signs short messages such as Squall's bearer tokens.
public enum HMACSHA256 {
    /// SHA-256's block size in bytes.
    static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key` (a key longer than a block is hashed first).
    public static func authenticate(_ message: some Sequence<UInt8>, key: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? digest(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = MessageDigest(.sha256)
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let outer = MessageDigest(.sha256)
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Whether two codes are equal, in time that depends only on their lengths (no early exit that would leak how
    /// many leading bytes of a forged code were right).
    public static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private static func digest(_ bytes: [UInt8]) -> [UInt8] {
        let digest = MessageDigest(.sha256)
        digest.update(bytes)
        return digest.finalize()
    }
}
