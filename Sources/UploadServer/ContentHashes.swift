import ResumableUpload
import TLSKit
import UploadStore

/// The running RFC 9530 hashes of one request's content, one per algorithm its `Content-Digest` states, fed as
/// the body streams in; used only under its upload slot's lock.
final class ContentHashes: @unchecked Sendable {
    /// The request (the slot's generation) they hash.
    let generation: UInt64
    private let hashes: [(DigestAlgorithm, MessageDigest)]

    init(generation: UInt64, algorithms: [DigestAlgorithm]) {
        self.generation = generation
        self.hashes = algorithms.map { ($0, MessageDigest($0.hash)) }
    }

    func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { buffer in
            for (_, hash) in hashes { hash.update(buffer) }
        }
    }

    /// The digests, once the content ended.
    func finalize() -> Digests {
        Digests(uniqueKeysWithValues: hashes.map { ($0.0, $0.1.finalize()) })
    }

    /// The digests of everything `writer` wrote: the whole upload when its request completes it.
    static func representation(_ algorithms: [DigestAlgorithm], of writer: UploadWriter?) throws -> Digests {
        guard !algorithms.isEmpty, let writer else { return [:] }
        let digests = try writer.digests(algorithms.map(\.hash))
        return Digests(uniqueKeysWithValues: zip(algorithms, digests).map { ($0, $1) })
    }
}

extension DigestAlgorithm {
    /// The hash function computing it.
    var hash: MessageDigest.Algorithm {
        switch self {
        case .sha256: .sha256
        case .sha512: .sha512
        }
    }
}
