import Foundation
import Glibc
import TLSKit
import TestSupport
import UploadStore

/// A fresh folder under the temporary folder for one test; `remove()` deletes it and everything in it.
struct StoreFolder {
    let path: String

    init() {
        var template = Array(
            (NSTemporaryDirectory() as NSString).appendingPathComponent("squall-store-test-XXXXXX").utf8CString)
        self.path = String(cString: mkdtemp(&template)!)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A store on this folder with a manual clock fixed at `now`.
    func open(now: Double = 1_000) throws -> FileUploadStore {
        try FileUploadStore(configuration: UploadStoreConfiguration(directory: path, clock: { now }))
    }

    /// Writes `text` to `relative` inside the folder (plain, not atomic).
    func write(_ text: String, to relative: String) {
        _ = FileManager.default.createFile(atPath: path + "/" + relative, contents: Data(text.utf8))
    }

    func contents(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + relative).map { [UInt8]($0) }
    }
}

/// Deterministic upload content drawn from a `SeededGenerator`, streamed chunk by chunk.
struct Content {
    let seed: UInt64
    let count: Int
    var chunkSize = 64 * 1024

    /// Streams bytes `range` (default all) into `writer`, chunk by chunk, never the whole body at once.
    func stream(into writer: UploadWriter, _ range: Range<Int>? = nil) throws {
        try forEachChunk(range ?? 0..<count) { try writer.write($0) }
    }

    /// The SHA-256 of the whole content, as hex.
    var sha256: String {
        let digest = MessageDigest(.sha256)
        try? forEachChunk(0..<count) { digest.update($0) }
        return MessageDigest.hexString(digest.finalize())
    }

    /// Calls `body` with consecutive chunks of the bytes in `range`.
    func forEachChunk(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8]()
        bytes.reserveCapacity(chunkSize)
        var offset = 0
        while offset < range.upperBound {
            let word = generator.next().littleEndian
            if offset >= range.lowerBound && offset + 8 <= range.upperBound {
                withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }
                offset += 8
            } else {
                for shift in stride(from: 0, to: 64, by: 8) where offset < range.upperBound {
                    if offset >= range.lowerBound { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
                    offset += 1
                }
            }
            if bytes.count >= chunkSize || (offset == range.upperBound && !bytes.isEmpty) {
                try bytes.withUnsafeBytes(body)
                bytes.removeAll(keepingCapacity: true)
            }
        }
    }
}

/// The code of the `UploadStoreError` that `body` throws, or `nil` when it throws nothing (or something else).
func storeError(_ body: () throws -> Void) -> UploadStoreError.Code? {
    do {
        try body()
        return nil
    } catch let error as UploadStoreError {
        return error.code
    } catch {
        return nil
    }
}

/// A test failure with a message, for `guard … else { throw Failure(…) }`.
struct Failure: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
