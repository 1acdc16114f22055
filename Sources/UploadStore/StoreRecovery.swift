import Foundation

/// Loads a store folder after a clean stop or a crash: one `UploadEntry` per upload folder with valid metadata.
///
/// Metadata that cannot be decoded is reported and left untouched (never lose data); leftover temp files of an
/// interrupted atomic write are removed; open uploads' unsynced tails are cut when the configuration asks.
enum StoreRecovery {
    static func load(
        _ directory: String, configuration: UploadStoreConfiguration
    ) throws -> (entries: [String: UploadEntry], report: RecoveryReport) {
        var report = RecoveryReport()
        var entries: [String: UploadEntry] = [:]
        for name in try StoreFiles.names(in: directory) {
            let folder = directory + "/" + name
            guard UploadID.isValid(name), StoreFiles.isDirectory(folder) else { continue }
            do {
                try removeTemporaryFiles(in: folder, report: &report)
                guard let entry = try loadEntry(name, folder: folder, configuration: configuration, report: &report)
                else { continue }
                entries[name] = entry
                report.recovered += 1
            } catch let error as UploadStoreError {
                report.problems.append(error)
            }
        }
        return (entries, report)
    }

    private static func removeTemporaryFiles(in folder: String, report: inout RecoveryReport) throws {
        let leftovers = try StoreFiles.names(in: folder).filter { $0.hasSuffix(StoreFiles.temporarySuffix) }
        for name in leftovers {
            try StoreFiles.remove(folder + "/" + name)
            report.removedTemporaryFiles.append(folder + "/" + name)
        }
        if !leftovers.isEmpty { try StoreFiles.syncFolder(folder) }
    }

    private static func loadEntry(
        _ id: String, folder: String, configuration: UploadStoreConfiguration, report: inout RecoveryReport
    ) throws -> UploadEntry? {
        let recordPath = folder + "/" + UploadEntry.recordName
        guard StoreFiles.size(recordPath) != nil else {
            report.orphanFolders.append(folder)
            return nil
        }
        let record = try decode(recordPath, id: id)
        let entry = UploadEntry(folder: folder, record: record)
        guard !record.cancelled else { return entry }
        let size = StoreFiles.size(entry.dataPath) ?? -1
        guard size >= record.durableOffset else {
            throw UploadStoreError(
                .corruptData, path: entry.dataPath,
                "\(entry.dataPath) holds \(max(size, 0)) bytes, durable offset \(record.durableOffset)")
        }
        if size > record.durableOffset && record.isOpen && configuration.truncateUnsyncedBytesOnOpen {
            try StoreFiles.truncate(entry.dataPath, to: record.durableOffset)
            report.truncated[id] = size - record.durableOffset
        }
        return entry
    }

    private static func decode(_ path: String, id: String) throws -> UploadRecord {
        let bytes = try StoreFiles.read(path)
        let record: UploadRecord
        do {
            record = try JSONDecoder().decode(UploadRecord.self, from: Data(bytes))
        } catch {
            throw UploadStoreError(.corruptMetadata, path: path, "\(path) cannot be decoded: \(error)")
        }
        guard record.id == id else {
            throw UploadStoreError(.corruptMetadata, path: path, "\(path) names upload \(record.id), not \(id)")
        }
        return record
    }
}
