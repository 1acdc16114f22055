import Foundation
import Testing
import UploadStore

struct FileUploadStoreTests {
    @Test func streamedUploadCompletesWithTheSourceDigest() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open(now: 42)
        let content = Content(seed: 7, count: 3 * 1024 * 1024 + 123)
        let record = try store.create(UploadCreation(principal: "alice", interopVersion: 8)).record
        let writer = try store.beginAppend(record.id, for: "alice", at: 0)
        try content.stream(into: writer)
        let done = try writer.finish(complete: true)
        #expect(done.complete)
        #expect(done.durableOffset == Int64(content.count))
        #expect(done.length == Int64(content.count))
        #expect(done.sha256 == content.sha256)
        #expect(done.sha256 != Content(seed: 8, count: content.count).sha256)
        #expect(done.completedAt == 42)
        #expect(done.interopVersion == 8)
        #expect(store.record(record.id) == done)
        #expect(folder.contents(record.id + "/data")?.count == content.count)
        #expect(
            storeError { _ = try store.beginAppend(record.id, for: "alice", at: done.durableOffset) }
                == .alreadyComplete)
    }

    @Test func durableOffsetAdvancesOnlyOnSync() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let content = Content(seed: 1, count: 10_000)
        let id = try store.create(UploadCreation()).record.id
        let writer = try store.beginAppend(id, for: nil, at: 0)
        try content.stream(into: writer, 0..<4_000)
        #expect(store.record(id)?.durableOffset == 0)
        #expect(try writer.sync() == 4_000)
        #expect(store.record(id)?.durableOffset == 4_000)
        try content.stream(into: writer, 4_000..<6_000)
        #expect(store.record(id)?.durableOffset == 4_000)
        let paused = try writer.finish(complete: false)
        #expect(paused.durableOffset == 6_000)
        #expect(!paused.complete && paused.sha256 == nil)
        #expect(storeError { _ = try store.beginAppend(id, for: nil, at: 4_000) } == .offsetMismatch)
        let resumed = try store.beginAppend(id, for: nil, at: 6_000)
        try content.stream(into: resumed, 6_000..<10_000)
        #expect(try resumed.finish(complete: true).sha256 == content.sha256)
    }

    @Test func idempotencyKeyReturnsTheExistingUpload() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let creation = UploadCreation(principal: "alice", idempotencyKey: "k1", length: 3)
        let first = try store.create(creation)
        guard case .created(let record) = first else { throw Failure("first creation was not new") }
        let writer = try store.beginAppend(record.id, for: "alice", at: 0)
        try [UInt8]([1, 2, 3]).withUnsafeBytes { try writer.write($0) }
        _ = try writer.finish(complete: true)
        let response = StoredResponse(status: 201, headers: [.init(name: "Location", value: "/files/1")])
        _ = try store.setFinalResponse(record.id, response, serverResourceId: "file-1")
        let again = try store.create(creation)
        guard case .existing(let existing) = again else { throw Failure("retry made a new upload") }
        #expect(existing.id == record.id)
        #expect(existing.complete && existing.finalResponse == response && existing.serverResourceId == "file-1")
        #expect(store.list().count == 1)
        guard case .created = try store.create(UploadCreation(principal: "bob", idempotencyKey: "k1")) else {
            throw Failure("another principal's key matched")
        }
        guard case .created = try store.create(UploadCreation(principal: "alice", idempotencyKey: "k2")) else {
            throw Failure("another key matched")
        }
        #expect(store.list().count == 3)
    }

    @Test func anotherPrincipalCannotSeeOrTouchAnUpload() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation(principal: "alice")).record.id
        #expect(store.record(id, for: "alice")?.id == id)
        #expect(store.record(id, for: "bob") == nil)
        #expect(store.record(id, for: nil) == nil)
        #expect(storeError { _ = try store.beginAppend(id, for: "bob", at: 0) } == .principalMismatch)
        #expect(storeError { _ = try store.cancel(id, for: "bob") } == .principalMismatch)
        #expect(
            storeError { _ = try store.beginAppend(String(repeating: "0", count: 32), for: "alice", at: 0) }
                == .notFound)
        #expect(store.record(id)?.cancelled == false)
    }

    @Test func cancelLeavesATombstoneWithoutData() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open(now: 5)
        let id = try store.create(UploadCreation()).record.id
        let writer = try store.beginAppend(id, for: nil, at: 0)
        try Content(seed: 2, count: 1_000).stream(into: writer)
        let record = try store.cancel(id, for: nil)
        #expect(record.cancelled && record.cancelledAt == 5)
        #expect(folder.contents(id + "/data") == nil)
        #expect(storeError { _ = try writer.sync() } == .writerAborted)
        #expect(storeError { _ = try store.beginAppend(id, for: nil, at: 0) } == .cancelled)
        #expect(try FileUploadStore.inspect(folder.path).records.map(\.cancelled) == [true])
    }

    @Test func lengthIsEnforced() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let writer = try store.beginAppend(id, for: nil, at: 0)
        try Content(seed: 3, count: 100).stream(into: writer)
        #expect(storeError { _ = try store.setLength(id, for: nil, to: 50) } == .lengthMismatch)
        #expect(try store.setLength(id, for: nil, to: 150).length == 150)
        #expect(storeError { _ = try store.setLength(id, for: nil, to: 200) } == .lengthMismatch)
        #expect(storeError { _ = try writer.finish(complete: true) } == .lengthMismatch)
        #expect(storeError { try Content(seed: 3, count: 51).stream(into: writer) } == .lengthMismatch)
        try Content(seed: 3, count: 50).stream(into: writer)
        #expect(try writer.finish(complete: true).durableOffset == 150)
    }

    @Test func duplicatesGroupCompletedUploadsWithEqualContent() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        var ids: [String] = []
        for (seed, complete) in [(1, true), (2, true), (1, true), (1, false)] as [(UInt64, Bool)] {
            let id = try store.create(UploadCreation()).record.id
            let writer = try store.beginAppend(id, for: nil, at: 0)
            try Content(seed: seed, count: 5_000).stream(into: writer)
            _ = try writer.finish(complete: complete)
            ids.append(id)
        }
        let groups = store.duplicates()
        #expect(groups.count == 1)
        #expect(groups.first?.sha256 == Content(seed: 1, count: 5_000).sha256)
        #expect(groups.first?.ids == [ids[0], ids[2]].sorted())
    }

    @Test func retentionRemovesOnlyOldEndedUploads() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        var made: [String] = []
        for now in [100.0, 200.0] {
            let store = try folder.open(now: now)
            let done = try store.create(UploadCreation()).record.id
            _ = try store.beginAppend(done, for: nil, at: 0).finish(complete: true)
            made.append(done)
            made.append(try store.create(UploadCreation()).record.id)
        }
        let store = try folder.open(now: 300)
        let removed = try store.removeCompleted(olderThan: 150, now: 300)
        #expect(removed == [made[0]])
        #expect(store.record(made[0]) == nil)
        #expect(folder.contents(made[0] + "/record.json") == nil)
        #expect(Set(store.list().map(\.id)) == Set(made.dropFirst()))
        #expect(try store.removeExpired().isEmpty)
    }

    @Test func aBatchDeleteRemovesWhatIsThereAndSkipsWhatIsNot() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let ids = try (0..<3).map { _ in try store.create(UploadCreation()).record.id }
        #expect(try store.delete([ids[0], "gone", ids[2]]) == [ids[0], ids[2]])
        #expect(store.list().map(\.id) == [ids[1]])
        #expect(folder.contents(ids[0] + "/record.json") == nil)
        #expect(folder.contents(ids[2] + "/record.json") == nil)
        #expect(folder.contents(ids[1] + "/record.json") != nil)
        #expect(try store.delete([ids[0]]).isEmpty)
        #expect(storeError { try store.delete(ids[0]) } == .notFound)
    }

    @Test func aFolderIsOpenInOneStoreAtATime() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let id = try {
            let store = try folder.open()
            #expect(storeError { _ = try folder.open() } == .storeInUse)
            let id = try store.create(UploadCreation()).record.id
            #expect(try FileUploadStore.inspect(folder.path).records.map(\.id) == [id])
            return id
        }()
        #expect(try folder.open().record(id) != nil)
    }
}
