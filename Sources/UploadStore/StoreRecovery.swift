import Foundation

/// Loads a store folder after a clean stop or a crash: one `UploadEntry` per upload folder with valid metadata.
///
/// Metadata that cannot be decoded is reported and left untouched (never lose data). An open upload's offset is
/// its data file's size (`UploadEntry`: syncs do not rewrite the record), never less than the record's. When
/// recovering (not inspecting): leftover temp files of an interrupted atomic write are removed, so are folders
/// whose removal was interrupted and the data of cancelled uploads, and records behind their data are saved.
enum StoreRecovery {
    /// Whether loading may change files.
    enum Mode {
        /// Opening the store: clean up and bring records up to their data.
        case recover
        /// Looking at a store another process may be using: change nothing.
        case inspect
    }

    /// The suffix a folder gets while it is being removed (renamed first, so removal is atomic).
    static let removingSuffix = ".removing"

    static func load(_ directory: String, mode: Mode) throws -> (entries: [String: UploadEntry], report: RecoveryReport)
    {
        var report = RecoveryReport()
        var entries: [String: UploadEntry] = [:]
        for name in try StoreFiles.names(in: directory) {
            let folder = directory + "/" + name
            do {
                if name.hasSuffix(removingSuffix), case .recover = mode {
                    try StoreFiles.remove(folder)
                    continue
                }
                guard UploadID.isValid(name), StoreFiles.isDirectory(folder) else { continue }
                if case .recover = mode { try removeTemporaryFiles(in: folder, report: &report) }
                guard let entry = try loadEntry(name, folder: folder, mode: mode, report: &report) else { continue }
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
        _ id: String, folder: String, mode: Mode, report: inout RecoveryReport
    ) throws -> UploadEntry? {
        let recordPath = folder + "/" + UploadEntry.recordName
        guard StoreFiles.size(recordPath) != nil else {
            report.orphanFolders.append(folder)
            return nil
        }
        let record = try decode(recordPath, id: id)
        let entry = UploadEntry(folder: folder, record: record)
        let size = StoreFiles.size(entry.dataPath)
        if record.cancelled {
            if size != nil, case .recover = mode { try StoreFiles.remove(entry.dataPath) }
            return entry
        }
        guard let size, size >= record.durableOffset else {
            throw UploadStoreError(
                .corruptData, path: entry.dataPath,
                "\(entry.dataPath) holds \(size ?? 0) bytes, durable offset \(record.durableOffset)")
        }
        guard size > record.durableOffset, record.isOpen else { return entry }
        var advanced = record
        advanced.durableOffset = size
        if case .recover = mode {
            try UploadEntry.save(advanced, to: recordPath)
            report.advanced[id] = size - record.durableOffset
        }
        return UploadEntry(folder: folder, record: advanced)
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
