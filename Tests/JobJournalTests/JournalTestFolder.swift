import Foundation
import Glibc
import JobJournal
import UploadJobs

/// A fresh folder under the temporary folder for one journal test, with helpers to read and damage its files.
struct JournalTestFolder {
    let path: String

    init() {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("squall-journal-test-XXXXXX").utf8CString)
        self.path = String(cString: mkdtemp(&template)!)
    }

    var logPath: String { path + "/" + JobJournal.logFileName }
    var snapshotPath: String { path + "/" + JobJournal.snapshotFileName }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    func open(
        inFlight: Int = 16, retries: Int = 3, configuration: JobJournalConfiguration = JobJournalConfiguration()
    ) throws -> JobJournal {
        try JobJournal(
            folder: path, store: JobStoreConfiguration(inFlightLimit: inFlight, retryLimit: retries),
            configuration: configuration)
    }

    func bytes(_ file: String) -> [UInt8] {
        FileManager.default.contents(atPath: file).map { [UInt8]($0) } ?? []
    }

    func write(_ bytes: [UInt8], to file: String) {
        _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
    }

    /// The offsets of the log's records, read from their length words.
    func recordOffsets() -> [Int] {
        let log = bytes(logPath)
        var offsets: [Int] = []
        var offset = 0
        while offset + 12 <= log.count {
            offsets.append(offset)
            let length = (0..<4).reduce(0) { $0 | Int(log[offset + $1]) << (8 * $1) }
            offset += 12 + length
        }
        return offsets
    }

    /// The `JobJournalError` code `body` throws, or nil.
    static func code(_ body: () throws -> Void) -> JobJournalError.Code? {
        do {
            try body()
            return nil
        } catch let error as JobJournalError {
            return error.code
        } catch {
            return nil
        }
    }
}
