import Foundation
import JobJournal
import Testing
import UploadJobs

struct JobJournalTests {
    @Test func reopeningGivesBackTheCommittedStore() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        let committed = journal.store
        let sequence = journal.sequence
        #expect(committed.ledger.all.count == 6)
        journal.close()
        let reopened = try folder.open()
        #expect(reopened.store == committed)
        #expect(reopened.sequence == sequence)
        #expect(reopened.recovery.replayedCommits == Int(sequence))
        #expect(reopened.recovery.droppedTail == nil)
        #expect(reopened.ledger[JobID(1)]?.serverResourceID == "r-1")
        try JournalScript.create(reopened, count: 1, at: 300)
        #expect(reopened.store.job(JobID(7))?.state == .registered)
    }

    @Test func aSecondOpenOfTheFolderIsRefusedUntilTheFirstCloses() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let first = try folder.open()
        do {
            _ = try folder.open()
            Issue.record("a second journal opened the same folder")
        } catch let error as JobJournalError {
            #expect(error.code == .journalInUse)
            #expect(error.path == folder.path)
        }
        first.close()
        #expect(JournalTestFolder.code { try JournalScript.create(first, count: 1, at: 1) } == .closed)
        let second = try folder.open()
        try JournalScript.create(second, count: 1, at: 1)
        #expect(second.sequence == 1)
    }

    @Test func aRefusedOrThrowingBlockWritesNothing() throws {
        struct Planned: Error {}
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open(inFlight: 2)
        try JournalScript.create(journal, count: 2, at: 1)
        let size = folder.bytes(folder.logPath).count
        let store = journal.store
        #expect(throws: Planned.self) {
            try journal.performChanges(at: 2) { block in
                try block.start(JobID(1))
                throw Planned()
            }
        }
        do {
            try JournalScript.create(journal, count: 1, at: 3)
            Issue.record("a third job passed the limit of 2")
        } catch let error as JobStoreError {
            #expect(error.code == .limitExceeded)
        }
        #expect(try journal.performChanges(at: 4) { _ in }.isEmpty)
        #expect(folder.bytes(folder.logPath).count == size)
        #expect(journal.store == store)
        #expect(journal.sequence == 1)
    }

    @Test func anOversizedRecordIsRefusedAndTheJournalGoesOn() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open(configuration: JobJournalConfiguration(maxRecordBytes: 600))
        let code = JournalTestFolder.code { try JournalScript.create(journal, count: 5, at: 1) }
        #expect(code == .recordTooLarge)
        #expect(journal.store.inFlightCount == 0)
        try JournalScript.create(journal, count: 1, at: 2)
        journal.close()
        #expect(try folder.open().store.inFlightCount == 1)
    }

    @Test func limitsComeFromTheOpenerNotTheJournal() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open(inFlight: 4)
        try JournalScript.create(journal, count: 4, at: 1)
        journal.close()
        let smaller = try folder.open(inFlight: 2)
        #expect(smaller.store.inFlightCount == 4)
        #expect(smaller.store.configuration.inFlightLimit == 2)
        #expect(throws: JobStoreError.self) { try JournalScript.create(smaller, count: 1, at: 2) }
    }

    @Test func ledgerJSONRoundTrips() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        let journal = try folder.open()
        try JournalScript.mixed(journal)
        let text = try journal.ledger.json()
        #expect(text.hasPrefix("{\"jobs\":[{"))
        #expect(try JobLedger(json: text) == journal.ledger)
        #expect(try JobLedger(json: journal.ledger.json(pretty: true)) == journal.ledger)
    }
}
