import HTTPWire
import StructuredFields

/// The RFC 9530 hash algorithms this implementation computes, by their registered keys (both "Active" in the
/// Hash Algorithms for HTTP Digest Fields registry).
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha256 = "sha-256"
    case sha512 = "sha-512"

    /// The length of a digest in bytes: a value of another length is malformed.
    public var byteCount: Int {
        switch self {
        case .sha256: 32
        case .sha512: 64
        }
    }
}

/// Digests by algorithm, as an RFC 9530 `Content-Digest` or `Repr-Digest` carries them.
public typealias Digests = [DigestAlgorithm: [UInt8]]

/// The RFC 9530 fields of one request: the digests it states and the ones it asks for.
///
/// `Content-Digest` covers this request's content; `Repr-Digest` the whole upload (the draft's "Integrity
/// Digests", -05 to -11; from -12 the draft defers to RFC 9530 itself). A dictionary member with an algorithm not
/// computed here (`md5`, `unixsum`, an unregistered one) is ignored, as RFC 9530 §2 lets a recipient do; a member
/// with a computable algorithm whose value is not a Byte Sequence of the algorithm's length makes the field
/// malformed (400 naming it), since ignoring it would accept content the sender said to check.
public struct RequestDigests: Sendable, Hashable {
    public static let contentField = "Content-Digest"
    public static let representationField = "Repr-Digest"
    public static let wantContentField = "Want-Content-Digest"
    public static let wantRepresentationField = "Want-Repr-Digest"

    /// What `Content-Digest` says this request's content hashes to; empty when there is nothing to verify.
    public var content: Digests
    /// What `Repr-Digest` says the whole upload hashes to; empty when there is nothing to verify.
    public var representation: Digests
    /// The algorithm `Want-Content-Digest` prefers most among those computed here, if any.
    public var wantedContent: DigestAlgorithm?
    /// The algorithm `Want-Repr-Digest` prefers most among those computed here, if any.
    public var wantedRepresentation: DigestAlgorithm?

    public init(
        content: Digests = [:], representation: Digests = [:], wantedContent: DigestAlgorithm? = nil,
        wantedRepresentation: DigestAlgorithm? = nil
    ) {
        self.content = content
        self.representation = representation
        self.wantedContent = wantedContent
        self.wantedRepresentation = wantedRepresentation
    }

    /// Reads the four fields; a malformed one is a 400 naming it.
    public init(fields: HTTPFields) throws(UploadProtocolError) {
        self.init(
            content: try Self.digests(Self.contentField, in: fields),
            representation: try Self.digests(Self.representationField, in: fields),
            wantedContent: try Self.preferred(Self.wantContentField, in: fields),
            wantedRepresentation: try Self.preferred(Self.wantRepresentationField, in: fields))
    }

    /// The value of a `Content-Digest` or `Repr-Digest` field stating `digests`, in algorithm order, e.g.
    /// `sha-256=:LCa0a2j/xo/5m0U8HTBBNBNCLXBkg7+g+YpeiGJm564=:`.
    public static func field(_ digests: Digests) -> String {
        let members = DigestAlgorithm.allCases.compactMap { algorithm -> (String, ItemOrInnerList)? in
            digests[algorithm].map { (algorithm.rawValue, .item(Item(.byteSequence($0)))) }
        }
        return FieldDictionary(members).description
    }

    /// The first algorithm of `stated` whose digest differs from the `computed` one (or was not computed).
    public static func mismatch(stated: Digests, computed: Digests) -> DigestAlgorithm? {
        DigestAlgorithm.allCases.first { algorithm in
            guard let expected = stated[algorithm] else { return false }
            return computed[algorithm] != expected
        }
    }

    private static func digests(_ name: String, in fields: HTTPFields) throws(UploadProtocolError) -> Digests {
        guard let dictionary = try UploadFields.dictionary(name, in: fields) else { return [:] }
        var digests: Digests = [:]
        for algorithm in DigestAlgorithm.allCases {
            guard let member = dictionary[algorithm.rawValue] else { continue }
            guard let bytes = member.item?.bareItem.byteSequence else {
                throw .malformed(name, "\(algorithm.rawValue) must be a Byte Sequence (:base64:)")
            }
            guard bytes.count == algorithm.byteCount else {
                throw .malformed(
                    name, "a \(algorithm.rawValue) digest has \(algorithm.byteCount) bytes, this one \(bytes.count)")
            }
            digests[algorithm] = bytes
        }
        return digests
    }

    /// The algorithm a `Want-Content-Digest` or `Want-Repr-Digest` field prefers most among those computed here,
    /// the first listed on a tie (RFC 9530 §4: each member an Integer from 0, not acceptable, to 10).
    public static func preferred(_ name: String, in fields: HTTPFields) throws(UploadProtocolError)
        -> DigestAlgorithm?
    {
        guard let dictionary = try UploadFields.dictionary(name, in: fields) else { return nil }
        var best: (algorithm: DigestAlgorithm, weight: Int64)?
        for (key, member) in dictionary {
            guard let weight = member.item?.bareItem.integer, (0...10).contains(weight) else {
                throw .malformed(name, "\(key) must be an Integer from 0 to 10")
            }
            guard let algorithm = DigestAlgorithm(rawValue: key), weight > 0 else { continue }
            if weight > best?.weight ?? 0 { best = (algorithm, weight) }
        }
        return best?.algorithm
    }
}
