/// What the store knows about one upload; saved as `record.json` beside the upload's data.
///
/// Times are seconds since 1970 from the store's clock. `durableOffset` is the number of bytes that are on disk
/// (synced) and may be reported to a client; bytes written after it are not yet promised. In `record.json` it may
/// lag behind an open upload's data file, which then holds the truth (`UploadEntry`).
public struct UploadRecord: Codable, Sendable, Equatable {
    public var id: String
    /// Who created the upload; another principal must not see it. `nil` for anonymous uploads.
    public var principal: String?
    /// The `Idempotency-Key` of the creation request, if it carried one.
    public var idempotencyKey: String?
    /// The resumable-upload interop version of the creation request (`nil`: plain HTTP).
    public var interopVersion: Int?
    /// The total length, once known.
    public var length: Int64?
    /// Bytes made durable and reportable.
    public var durableOffset: Int64
    public var complete: Bool
    /// A cancelled upload keeps only this record (a tombstone), so a later request learns it is gone.
    public var cancelled: Bool
    public var createdAt: Double
    public var completedAt: Double?
    public var cancelledAt: Double?
    /// Lowercase hex SHA-256 of the complete data, computed once at completion.
    public var sha256: String?
    /// The response sent when the upload completed, kept so a retry can be answered the same way.
    public var finalResponse: StoredResponse?
    /// The id of the resource the upload became on the server, if any.
    public var serverResourceId: String?

    public init(
        id: String, principal: String? = nil, idempotencyKey: String? = nil, interopVersion: Int? = nil,
        length: Int64? = nil, createdAt: Double
    ) {
        self.id = id
        self.principal = principal
        self.idempotencyKey = idempotencyKey
        self.interopVersion = interopVersion
        self.length = length
        self.durableOffset = 0
        self.complete = false
        self.cancelled = false
        self.createdAt = createdAt
    }

    /// Oldest first, then by id.
    static func creationOrder(_ first: UploadRecord, _ second: UploadRecord) -> Bool {
        (first.createdAt, first.id) < (second.createdAt, second.id)
    }

    /// Whether bytes may still be appended.
    public var isOpen: Bool {
        !complete && !cancelled
    }
}

/// A response kept for idempotent replay: status and header lines, in order, as text.
public struct StoredResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var headers: [Header]

    /// One header line.
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, headers: [Header] = []) {
        self.status = status
        self.headers = headers
    }
}

/// What a caller asks for when creating an upload; the store fills in the time and the offset.
public struct UploadCreation: Sendable, Equatable {
    /// The id to use; `nil` lets the store generate one.
    public var id: String?
    public var principal: String?
    public var idempotencyKey: String?
    public var interopVersion: Int?
    public var length: Int64?

    public init(
        id: String? = nil, principal: String? = nil, idempotencyKey: String? = nil, interopVersion: Int? = nil,
        length: Int64? = nil
    ) {
        self.id = id
        self.principal = principal
        self.idempotencyKey = idempotencyKey
        self.interopVersion = interopVersion
        self.length = length
    }
}

/// The result of `create`: a new upload, or the one an earlier request with the same idempotency key made.
public enum CreateOutcome: Sendable, Equatable {
    case created(UploadRecord)
    case existing(UploadRecord)

    /// The record either way.
    public var record: UploadRecord {
        switch self {
        case .created(let record), .existing(let record): record
        }
    }
}

/// Completed uploads whose data is byte-for-byte the same (equal SHA-256).
public struct DuplicateGroup: Sendable, Equatable {
    public var sha256: String
    /// The ids, sorted.
    public var ids: [String]

    /// The groups of two or more completed (not cancelled) records with equal digests, by digest.
    static func find(in records: [UploadRecord]) -> [DuplicateGroup] {
        var byDigest: [String: [String]] = [:]
        for record in records where record.complete && !record.cancelled {
            if let digest = record.sha256 { byDigest[digest, default: []].append(record.id) }
        }
        return byDigest.filter { $0.value.count > 1 }
            .map { DuplicateGroup(sha256: $0.key, ids: $0.value.sorted()) }
            .sorted { $0.sha256 < $1.sha256 }
    }
}

/// A read-only view of a store folder for the harness and for people: every upload's record, the files that
/// could not be read, and the duplicate groups.
public struct StoreListing: Sendable, Equatable {
    /// Oldest first.
    public var records: [UploadRecord]
    public var problems: [UploadStoreError]
    public var duplicates: [DuplicateGroup]
}
