import Foundation
import JobJournal
import Testing
import UploadJobs

/// Torn tails, damage, compaction and crashes between a compaction's steps.
struct JournalRecoveryTests {
    /// A journal with a few commits; returns the store before and after its last commit and the last record's
    /// offset.
    static func build(_ folder: JournalTestFolder) throws -> (before: JobStore, after: JobStore, last: Int) {
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        let before = journal.store
        try journal.performChanges(at: 500) { block in
            try block.succeed(JobID(5), status: 200, headers: [HeaderField("X-Server-Resource-Id", "r-5")])
            try block.cancel(JobID(6))
        }
        let after = journal.store
        journal.close()
        return (before, after, folder.recordOffsets().last!)
    }

    @Test func aTornLastRecordIsDroppedAtEveryCut() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let (before, after, last) = try Self.build(folder)
        let log = folder.bytes(folder.logPath)
        #expect(log.count - last > 100)
        for cut in last..<log.count {
            folder.write(Array(log[..<cut]), to: folder.logPath)
            let journal = try folder.open()
            #expect(journal.store == before, "cut at \(cut)")
            #expect(journal.recovery.droppedTail?.offset == (cut == last ? nil : Int64(last)))
            #expect(journal.recovery.droppedTail?.length == (cut == last ? nil : Int64(cut - last)))
            #expect(folder.bytes(folder.logPath).count == last)
            journal.close()
        }
        folder.write(log, to: folder.logPath)
        #expect(try folder.open().store == after)
    }

    @Test func commitsAfterADroppedTailSurviveTheNextOpen() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let (_, _, last) = try Self.build(folder)
        folder.write(Array(folder.bytes(folder.logPath)[..<(last + 20)]), to: folder.logPath)
        let journal = try folder.open()
        try JournalScript.create(journal, count: 1, at: 600)
        let committed = journal.store
        journal.close()
        let reopened = try folder.open()
        #expect(reopened.store == committed)
        #expect(reopened.recovery.droppedTail == nil)
    }

    @Test func aLastRecordFailingItsCRCIsDroppedAndReported() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let (before, _, last) = try Self.build(folder)
        var log = folder.bytes(folder.logPath)
        log[last + 40] ^= 0x20
        folder.write(log, to: folder.logPath)
        let journal = try folder.open()
        #expect(journal.store == before)
        #expect(journal.recovery.droppedTail?.reason == "the last record's payload fails its CRC32")
    }

    @Test func zeroBytesAfterTheLastRecordAreATornTail() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let (_, after, _) = try Self.build(folder)
        let log = folder.bytes(folder.logPath)
        folder.write(log + [UInt8](repeating: 0, count: 700), to: folder.logPath)
        let journal = try folder.open()
        #expect(journal.store == after)
        #expect(journal.recovery.droppedTail?.offset == Int64(log.count))
        #expect(journal.recovery.droppedTail?.length == 700)
    }

    /// Damage that is not at the tail: a payload byte, a length word, a missing record, garbage after the end.
    @Test(arguments: ["payload", "length", "missing", "garbage"])
    func damageBeforeTheTailIsAnErrorNamingFileAndOffset(kind: String) throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        _ = try Self.build(folder)
        var log = folder.bytes(folder.logPath)
        let offsets = folder.recordOffsets()
        let second = offsets[1]
        switch kind {
        case "payload": log[second + 30] ^= 0x01
        case "length": log[second + 1] ^= 0x01
        case "missing": log.removeSubrange(second..<offsets[2])
        default: log += Array("not a record at all".utf8)
        }
        folder.write(log, to: folder.logPath)
        do {
            _ = try folder.open()
            Issue.record("damaged log (\(kind)) opened")
        } catch let error as JobJournalError {
            #expect(error.code == .corrupt)
            #expect(error.path == folder.logPath)
            let expected = kind == "garbage" ? folder.bytes(folder.logPath).count - 19 : second
            #expect(error.offset == Int64(expected))
            #expect(error.detail.hasPrefix("\(folder.logPath) at offset \(expected): "))
        }
        #expect(folder.bytes(folder.logPath) == log)
    }

    @Test func compactionKeepsEverythingAcrossReopen() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let configuration = JobJournalConfiguration(compactionThreshold: 2_048)
        let journal = try folder.open(configuration: configuration)
        for round in 0..<20 {
            let ids = try JournalScript.create(journal, count: 2, at: JobTime(round) * 100)
            for id in ids { try JournalScript.run(journal, id, at: JobTime(round) * 100 + 10, succeed: true) }
        }
        let committed = journal.store
        let snapshot = folder.bytes(folder.snapshotPath).count
        #expect(snapshot > 0)
        #expect(folder.bytes(folder.logPath).count <= max(2_048, snapshot) + 1_000)
        journal.close()
        let reopened = try folder.open(configuration: configuration)
        #expect(reopened.store == committed)
        #expect(reopened.recovery.snapshotSequence > 0)
        #expect(reopened.store.ledger.all.count == 40)
        #expect(reopened.ledger.all.allSatisfy { $0.acknowledgedAt != nil })
    }

    @Test func aCompactionCutShortBeforeEmptyingTheLogIsReplayedOnce() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        let staleLog = folder.bytes(folder.logPath)
        let sequence = journal.sequence
        try journal.compact()
        #expect(folder.bytes(folder.logPath).isEmpty)
        journal.close()
        folder.write(staleLog, to: folder.logPath)
        let reopened = try folder.open()
        #expect(reopened.recovery.skippedCommits == Int(sequence))
        #expect(reopened.recovery.replayedCommits == 0)
        try JournalScript.create(reopened, count: 1, at: 900)
        let committed = reopened.store
        reopened.close()
        let again = try folder.open()
        #expect(again.store == committed)
        #expect(again.recovery.replayedCommits == 1)
    }

    @Test func aLeftoverTemporarySnapshotIsRemovedAndReported() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        let committed = journal.store
        journal.close()
        folder.write(Array("half a snapshot".utf8), to: folder.snapshotPath + ".tmp")
        let reopened = try folder.open()
        #expect(reopened.recovery.removedTemporarySnapshot)
        #expect(reopened.store == committed)
        #expect(!FileManager.default.fileExists(atPath: folder.snapshotPath + ".tmp"))
    }

    @Test func aDamagedSnapshotIsAnErrorNamingIt() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        try journal.compact()
        journal.close()
        var snapshot = folder.bytes(folder.snapshotPath)
        snapshot[snapshot.count / 2] ^= 0x04
        folder.write(snapshot, to: folder.snapshotPath)
        do {
            _ = try folder.open()
            Issue.record("a damaged snapshot opened")
        } catch let error as JobJournalError {
            #expect(error.code == .corrupt)
            #expect(error.path == folder.snapshotPath)
        }
    }
}
