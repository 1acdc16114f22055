import Foundation
import Glibc
import UploadJobs

/// Reads a journal folder's snapshot and log back, telling a torn tail from damage.
enum JournalLoader {
    /// The snapshot at `path` and its size, or nil when there is none. The snapshot is written atomically, so
    /// any damage in it is an error, never a tail to drop.
    static func snapshot(at path: String) throws(JobJournalError) -> (JournalSnapshot, Int64)? {
        guard JournalFolder.exists(path) else { return nil }
        let file = try JournalFile(path, flags: O_RDONLY)
        let size = try file.size()
        let headerSize = Int64(JournalFrame.headerSize)
        guard size >= headerSize,
            let header = JournalFrame.header(try file.read(at: 0, count: JournalFrame.headerSize)[...])
        else { throw .corrupt(path, at: 0, "the snapshot's header is missing or fails its check") }
        guard headerSize + Int64(header.length) == size else {
            throw .corrupt(
                path, at: 0,
                "the snapshot's header says \(header.length) payload bytes; the file has \(size - headerSize)")
        }
        let payload = try file.read(at: headerSize, count: header.length)
        guard CRC32.checksum(payload) == header.payloadCRC else {
            throw .corrupt(path, at: headerSize, "the snapshot's payload fails its CRC32")
        }
        return (try decode(JournalSnapshot.self, payload, path: path, offset: 0), size)
    }

    /// Visits each whole, intact record of the log in order with its offset and payload; returns the end of the
    /// last one and the torn tail after it, if any. Damage anywhere else throws `corrupt` naming the offset.
    static func scan(
        _ file: JournalFile, maxRecordBytes: Int, visit: (Int64, [UInt8]) throws(JobJournalError) -> Void
    ) throws(JobJournalError) -> (end: Int64, tail: JournalRecovery.DroppedTail?) {
        let size = try file.size()
        var offset: Int64 = 0
        while offset < size {
            let remaining = size - offset
            func torn(_ reason: String) -> (Int64, JournalRecovery.DroppedTail?) {
                (offset, JournalRecovery.DroppedTail(offset: offset, length: remaining, reason: reason))
            }
            guard remaining >= Int64(JournalFrame.headerSize) else {
                return torn("\(remaining) bytes, less than a record header")
            }
            guard let header = JournalFrame.header(try file.read(at: offset, count: JournalFrame.headerSize)[...])
            else {
                if try file.isZero(from: offset, to: size) { return torn("\(remaining) zero bytes, never written") }
                throw .corrupt(file.path, at: offset, "the record header fails its check")
            }
            guard header.length <= maxRecordBytes else {
                throw .corrupt(file.path, at: offset, "a record of \(header.length) bytes exceeds \(maxRecordBytes)")
            }
            let end = offset + Int64(JournalFrame.headerSize + header.length)
            guard end <= size else {
                return torn("a record of \(header.length) payload bytes ends at \(end), past the end of the file")
            }
            let payload = try file.read(at: offset + Int64(JournalFrame.headerSize), count: header.length)
            guard CRC32.checksum(payload) == header.payloadCRC else {
                if end == size { return torn("the last record's payload fails its CRC32") }
                throw .corrupt(file.path, at: offset, "the record's payload fails its CRC32 and more records follow")
            }
            try visit(offset, payload)
            offset = end
        }
        return (offset, nil)
    }

    /// Decodes a JSON payload; failure is damage at `offset` in `path`.
    static func decode<T: Decodable>(
        _ type: T.Type, _ payload: [UInt8], path: String, offset: Int64
    ) throws(JobJournalError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch {
            throw .corrupt(path, at: offset, "the record's JSON does not decode: \(error)")
        }
    }
}
