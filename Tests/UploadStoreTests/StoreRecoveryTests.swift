import Foundation
import Testing
import UploadStore

struct StoreRecoveryTests {
    @Test func reopeningRestoresRecordsAndOffsets() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let content = Content(seed: 11, count: 200_000)
        let (id, doneID) = try {
            let store = try folder.open()
            let id = try store.create(UploadCreation(principal: "p", idempotencyKey: "k", length: 200_000)).record.id
            let writer = try store.beginAppend(id, for: "p", at: 0)
            try content.stream(into: writer, 0..<70_000)
            _ = try writer.sync()
            let doneID = try store.create(UploadCreation(principal: "p", idempotencyKey: "k2")).record.id
            let done = try store.beginAppend(doneID, for: "p", at: 0)
            try content.stream(into: done)
            _ = try done.finish(complete: true)
            _ = try store.setFinalResponse(doneID, StoredResponse(status: 200), serverResourceId: "r1")
            return (id, doneID)
        }()
        let store = try folder.open()
        #expect(store.recovery.recovered == 2)
        #expect(store.recovery.problems.isEmpty)
        #expect(store.recovery.advanced == [id: 70_000], "synced, never saved in the record: the data says it")
        #expect(store.record(id, for: "p")?.durableOffset == 70_000)
        #expect(store.record(id, for: "p")?.length == 200_000)
        #expect(store.record(doneID)?.sha256 == content.sha256)
        guard case .existing(let again) = try store.create(UploadCreation(principal: "p", idempotencyKey: "k2")) else {
            throw Failure("the idempotency index was not restored")
        }
        #expect(again.id == doneID)
        #expect(again.finalResponse == StoredResponse(status: 200) && again.serverResourceId == "r1")
        let writer = try store.beginAppend(id, for: "p", at: 70_000)
        try content.stream(into: writer, 70_000..<200_000)
        #expect(try writer.finish(complete: true).sha256 == content.sha256)
    }

    /// A writer that synced 5,000 bytes, wrote 4,000 more without syncing and then vanished, as after a kill -9:
    /// the record on disk was saved at creation only (syncs do not rewrite it).
    private func storeWithUnsyncedTail(_ folder: StoreFolder) throws -> String {
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let writer = try store.beginAppend(id, for: nil, at: 0)
        try Content(seed: 4, count: 9_000).stream(into: writer, 0..<5_000)
        #expect(try writer.sync() == 5_000)
        try Content(seed: 4, count: 9_000).stream(into: writer, 5_000..<9_000)
        return id
    }

    @Test func anOpenUploadsOffsetIsItsDataAfterACrash() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let id = try storeWithUnsyncedTail(folder)
        #expect(folder.contents(id + "/data")?.count == 9_000)
        let listing = try FileUploadStore.inspect(folder.path)
        #expect(listing.records.first?.durableOffset == 9_000)

        let store = try folder.open()
        #expect(store.recovery.advanced == [id: 9_000])
        #expect(store.record(id)?.durableOffset == 9_000)
        #expect(storeError { _ = try store.beginAppend(id, for: nil, at: 5_000) } == .offsetMismatch)
        let content = Content(seed: 4, count: 12_000)
        let writer = try store.beginAppend(id, for: nil, at: 9_000)
        try content.stream(into: writer, 9_000..<12_000)
        #expect(try writer.finish(complete: true).sha256 == content.sha256)
    }

    @Test func aRecordBroughtUpToItsDataIsSavedOnOpen() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let id = try storeWithUnsyncedTail(folder)
        _ = try folder.open()
        let again = try folder.open()
        #expect(again.recovery.advanced.isEmpty)
        #expect(again.record(id)?.durableOffset == 9_000)
    }

    @Test func corruptMetadataIsReportedAndLeftUntouched() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let (good, bad) = try {
            let store = try folder.open()
            return (try store.create(UploadCreation()).record.id, try store.create(UploadCreation()).record.id)
        }()
        folder.write("{\"id\": \"truncated", to: bad + "/record.json")
        let store = try folder.open()
        #expect(store.recovery.problems.map(\.code) == [.corruptMetadata])
        #expect(store.recovery.problems.first?.path == folder.path + "/" + bad + "/record.json")
        #expect(store.recovery.recovered == 1)
        #expect(store.record(good) != nil && store.record(bad) == nil)
        #expect(folder.contents(bad + "/record.json") == Array("{\"id\": \"truncated".utf8))
        #expect(folder.contents(bad + "/data") == [])
    }

    @Test func leftoverTempFileIsRemovedAndTheRecordKept() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let id = try folder.open().create(UploadCreation(length: 10)).record.id
        folder.write("{\"half", to: id + "/record.json.tmp")
        let store = try folder.open()
        #expect(store.recovery.removedTemporaryFiles == [folder.path + "/" + id + "/record.json.tmp"])
        #expect(folder.contents(id + "/record.json.tmp") == nil)
        #expect(store.record(id)?.length == 10)
        #expect(store.recovery.problems.isEmpty)
    }

    @Test func foldersWithoutMetadataAreOrphansAndOtherNamesIgnored() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let orphan = String(repeating: "a", count: 32)
        try FileManager.default.createDirectory(atPath: folder.path + "/" + orphan, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: folder.path + "/lost+found", withIntermediateDirectories: false)
        folder.write("x", to: "notes.txt")
        let store = try folder.open()
        #expect(store.recovery.orphanFolders == [folder.path + "/" + orphan])
        #expect(store.recovery.recovered == 0 && store.list().isEmpty)
        #expect(storeError { _ = try store.create(UploadCreation(id: orphan)) } == .invalidID)
    }

    @Test func dataShorterThanTheDurableOffsetIsCorruptData() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let id = try {
            let store = try folder.open()
            let id = try store.create(UploadCreation()).record.id
            let writer = try store.beginAppend(id, for: nil, at: 0)
            try Content(seed: 5, count: 1_000).stream(into: writer)
            _ = try writer.finish(complete: false)
            return id
        }()
        folder.write("short", to: id + "/data")
        let store = try folder.open()
        #expect(store.recovery.problems.map(\.code) == [.corruptData])
        #expect(store.record(id) == nil)
        #expect(folder.contents(id + "/data") == Array("short".utf8))
    }

    @Test func defaultStoreMakesAFreshTemporaryFolder() throws {
        let first = try FileUploadStore()
        let second = try FileUploadStore()
        defer {
            try? FileManager.default.removeItem(atPath: first.directory)
            try? FileManager.default.removeItem(atPath: second.directory)
        }
        #expect(first.directory != second.directory)
        #expect(first.directory.hasPrefix(NSTemporaryDirectory()))
        let id = try first.create(UploadCreation()).record.id
        #expect(FileManager.default.fileExists(atPath: first.directory + "/" + id + "/record.json"))
        #expect(second.list().isEmpty)
    }

    @Test func inspectionListsWithoutChangingAnything() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let (first, second) = try {
            let store = try folder.open()
            var ids: [String] = []
            for _ in 0..<2 {
                let id = try store.create(UploadCreation(principal: "p", idempotencyKey: "k\(ids.count)")).record.id
                let writer = try store.beginAppend(id, for: "p", at: 0)
                try Content(seed: 3, count: 2_000).stream(into: writer)
                _ = try writer.finish(complete: true)
                ids.append(id)
            }
            return (ids[0], ids[1])
        }()
        let open = try storeWithUnsyncedTail(folder)
        folder.write("{", to: first + "/record.json.tmp")
        let bad = String(repeating: "b", count: 32)
        try FileManager.default.createDirectory(atPath: folder.path + "/" + bad, withIntermediateDirectories: false)
        folder.write("[]", to: bad + "/record.json")
        let listing = try FileUploadStore.inspect(folder.path)
        #expect(listing.records.count == 3)
        #expect(listing.records.first { $0.id == open }?.durableOffset == 9_000)
        #expect(listing.records.first { $0.id == second }?.idempotencyKey == "k1")
        #expect(listing.problems.map(\.code) == [.corruptMetadata])
        #expect(listing.duplicates.map(\.ids) == [[first, second].sorted()])
        #expect(listing.duplicates.first?.sha256 == Content(seed: 3, count: 2_000).sha256)
        #expect(folder.contents(open + "/data")?.count == 9_000)
        #expect(folder.contents(first + "/record.json.tmp") == Array("{".utf8))
    }

    @Test func interruptedRemovalsAreFinishedOnOpen() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let (cancelled, kept) = try {
            let store = try folder.open()
            let cancelled = try store.create(UploadCreation()).record.id
            _ = try store.cancel(cancelled, for: nil)
            return (cancelled, try store.create(UploadCreation()).record.id)
        }()
        folder.write("left over", to: cancelled + "/data")
        let removing = String(repeating: "c", count: 32) + ".removing"
        try FileManager.default.createDirectory(
            atPath: folder.path + "/" + removing, withIntermediateDirectories: false)
        folder.write("x", to: removing + "/data")
        let store = try folder.open()
        #expect(folder.contents(cancelled + "/data") == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/" + removing))
        #expect(store.record(cancelled)?.cancelled == true)
        #expect(store.record(kept)?.cancelled == false)
        #expect(store.recovery.problems.isEmpty && store.recovery.recovered == 2)
        try store.delete(kept)
        #expect(try FileUploadStore.inspect(folder.path).records.map(\.id) == [cancelled])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".lock", cancelled])
    }
}
