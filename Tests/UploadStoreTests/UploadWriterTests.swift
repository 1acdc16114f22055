import Dispatch
import Foundation
import Synchronization
import Testing
import UploadStore

struct UploadWriterTests {
    @Test func abortWriterMakesTheConcurrentWritersNextWriteFail() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let content = Content(seed: 6, count: 8_000)
        let wrote = DispatchSemaphore(value: 0)
        let aborted = DispatchSemaphore(value: 0)
        let outcome = Mutex<UploadStoreError.Code?>(nil)
        let thread = Thread {
            let code = storeError {
                let writer = try store.beginAppend(id, for: nil, at: 0)
                try content.stream(into: writer, 0..<3_000)
                wrote.signal()
                aborted.wait()
                try content.stream(into: writer, 3_000..<8_000)
            }
            outcome.withLock { $0 = code }
            wrote.signal()
        }
        thread.start()
        wrote.wait()
        #expect(try store.abortWriter(id) == 3_000)
        aborted.signal()
        wrote.wait()
        #expect(outcome.withLock { $0 } == .writerAborted)
        #expect(store.record(id)?.durableOffset == 3_000)
        #expect(folder.contents(id + "/data")?.count == 3_000)
        let next = try store.beginAppend(id, for: nil, at: 3_000)
        try content.stream(into: next, 3_000..<8_000)
        #expect(try next.finish(complete: true).sha256 == content.sha256)
    }

    @Test func aSecondWriterWaitsForTheFirstToEnd() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let first = try store.beginAppend(id, for: nil, at: 0)
        #expect(storeError { _ = try store.beginAppend(id, for: nil, at: 0) } == .writerActive)
        #expect(try store.abortWriter(id) == 0)
        #expect(try store.abortWriter(id) == 0)
        let second = try store.beginAppend(id, for: nil, at: 0)
        #expect(storeError { _ = try first.sync() } == .writerAborted)
        #expect(storeError { _ = try first.finish(complete: true) } == .writerAborted)
        try Content(seed: 1, count: 10).stream(into: second)
        #expect(try second.sync() == 10)
        #expect(storeError { _ = try store.abortWriter(String(repeating: "f", count: 32)) } == .notFound)
    }

    /// The digest kept while bytes arrive must not count a dropped writer's unsynced tail, which the next writer
    /// overwrites.
    @Test func theDigestForgetsACutTail() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let content = Content(seed: 8, count: 9_000)
        do {
            let writer = try store.beginAppend(id, for: nil, at: 0)
            try content.stream(into: writer, 0..<5_000)
            #expect(try writer.sync() == 5_000)
            try Content(seed: 99, count: 9_000).stream(into: writer, 5_000..<9_000)
        }
        let writer = try store.beginAppend(id, for: nil, at: 5_000)
        try content.stream(into: writer, 5_000..<9_000)
        #expect(try writer.finish(complete: true).sha256 == content.sha256)
    }

    /// Bytes that arrive in order over several requests are hashed as they come, and the result is the data's.
    @Test func theDigestSpansSeveralWriters() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        let content = Content(seed: 9, count: 30_000)
        for range in [0..<10_000, 10_000..<20_000] {
            let writer = try store.beginAppend(id, for: nil, at: Int64(range.lowerBound))
            try content.stream(into: writer, range)
            #expect(try writer.finish(complete: false).durableOffset == Int64(range.upperBound))
        }
        let last = try store.beginAppend(id, for: nil, at: 20_000)
        try content.stream(into: last, 20_000..<30_000)
        #expect(try last.finish(complete: true).sha256 == content.sha256)
    }

    @Test func droppingAWriterEndsItWithoutASync() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let id = try store.create(UploadCreation()).record.id
        do {
            let writer = try store.beginAppend(id, for: nil, at: 0)
            try Content(seed: 1, count: 500).stream(into: writer)
        }
        #expect(store.record(id)?.durableOffset == 0)
        let writer = try store.beginAppend(id, for: nil, at: 0)
        #expect(folder.contents(id + "/data") == [])
        let done = try writer.finish(complete: true)
        #expect(storeError { try [UInt8]([1]).withUnsafeBytes { try writer.write($0) } } == .writerAborted)
        #expect(done.length == 0 && done.sha256 == Content(seed: 1, count: 0).sha256)
    }

    @Test func fiftyConcurrentUploadsAreAllIntact() throws {
        let folder = StoreFolder()
        defer { folder.remove() }
        let store = try folder.open()
        let uploads = 50
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for index in 0..<uploads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let content = Content(seed: UInt64(index), count: 20_000 + 997 * index, chunkSize: 4_096)
                let code = storeError {
                    let id = try store.create(UploadCreation(principal: "p\(index)", length: Int64(content.count)))
                        .record.id
                    let writer = try store.beginAppend(id, for: "p\(index)", at: 0)
                    try content.forEachChunk(0..<content.count) { chunk in
                        try writer.write(chunk)
                        _ = try writer.sync()
                    }
                    let done = try writer.finish(complete: true)
                    if done.sha256 != content.sha256 { failures.withLock { $0.append("digest of \(index)") } }
                }
                if let code { failures.withLock { $0.append("\(index): \(code)") } }
            }
            thread.start()
        }
        group.wait()
        #expect(failures.withLock { $0 } == [])
        let records = store.list()
        #expect(records.count == uploads)
        #expect(records.allSatisfy { $0.complete && $0.durableOffset == $0.length })
        #expect(store.duplicates().isEmpty)
        #expect(try FileUploadStore.inspect(folder.path).records == records)
    }
}
