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
