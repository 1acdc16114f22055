import Foundation
import UploadStore

/// One upload as `GET /_squall/uploads` lists it.
public struct UploadAdminListing: Codable, Sendable, Equatable {
    public var id: String
    /// Bytes durable and reportable.
    public var offset: Int64
    public var length: Int64?
    public var complete: Bool
    public var cancelled: Bool
    /// Lowercase hex SHA-256 of the complete data.
    public var sha256: String?
    /// Always `nil` until authentication exists.
    public var principal: String?
    public var idempotencyKey: String?
    /// The other completed uploads with the same content, sorted.
    public var duplicates: [String]

    enum CodingKeys: String, CodingKey {
        case id, offset, length, complete, cancelled, sha256, principal, idempotencyKey, duplicates
    }

    /// Encodes every key, absent values as `null`, so the listing's shape never changes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(offset, forKey: .offset)
        try container.encode(length, forKey: .length)
        try container.encode(complete, forKey: .complete)
        try container.encode(cancelled, forKey: .cancelled)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(principal, forKey: .principal)
        try container.encode(idempotencyKey, forKey: .idempotencyKey)
        try container.encode(duplicates, forKey: .duplicates)
    }

    /// The listing of `records`, oldest first, with their duplicates.
    public static func entries(_ records: [UploadRecord]) -> [UploadAdminListing] {
        var byDigest: [String: [String]] = [:]
        for record in records where record.complete && !record.cancelled {
            if let digest = record.sha256 { byDigest[digest, default: []].append(record.id) }
        }
        return records.map { record in
            let twins = record.sha256.flatMap { byDigest[$0] } ?? []
            return UploadAdminListing(
                id: record.id, offset: record.durableOffset, length: record.length, complete: record.complete,
                cancelled: record.cancelled, sha256: record.sha256, principal: record.principal,
                idempotencyKey: record.idempotencyKey, duplicates: twins.filter { $0 != record.id }.sorted())
        }
    }

    /// The JSON array of `entries(records)`, keys sorted.
    static func json(_ records: [UploadRecord]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(entries(records)))
    }
}
