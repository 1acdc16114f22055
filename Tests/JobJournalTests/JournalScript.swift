import JobJournal
import UploadJobs

/// Commits that take jobs through their life, for journals to hold.
enum JournalScript {
    static let destination = UploadDestination(
        url: "http://127.0.0.1:1/upload", headerFields: [HeaderField("X-Filename", "f")])

    /// Creates `count` jobs in one block; returns their ids.
    @discardableResult
    static func create(_ journal: JobJournal, count: Int, at now: JobTime, prefix: String = "asset") throws -> [JobID] {
        var ids: [JobID] = []
        try journal.performChanges(at: now) { block in
            for index in 0..<count {
                ids.append(try block.createJob(assetID: "\(prefix)-\(now)-\(index)", destination: destination))
            }
        }
        return ids
    }

    /// Starts, feeds, finishes and (for successes) acknowledges `id` in four commits.
    static func run(_ journal: JobJournal, _ id: JobID, at now: JobTime, succeed: Bool) throws {
        try journal.performChanges(at: now) { try $0.start(id) }
        try journal.record(.bytesSent(ByteRange(offset: 0, length: 1_000)), job: id, at: now + 1)
        try journal.performChanges(at: now + 2) { block in
            if succeed {
                try block.succeed(id, status: 201, headers: [HeaderField("X-Server-Resource-Id", "r-\(id.number)")])
            } else {
                try block.fail(id, error: .networkConnectionLost)
            }
        }
        if succeed { try journal.performChanges(at: now + 3) { try $0.acknowledge(id) } }
    }

    /// A journal with a mix of states: 3 jobs acknowledged, 1 failed, 1 pending, 1 registered.
    static func mixed(_ journal: JobJournal) throws {
        let ids = try create(journal, count: 6, at: 10)
        for (index, id) in ids.prefix(4).enumerated() {
            try run(journal, id, at: 100 + JobTime(index) * 10, succeed: index != 3)
        }
        try journal.performChanges(at: 200) { try $0.start(ids[4]) }
    }
}
