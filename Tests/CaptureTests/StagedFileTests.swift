import Foundation
import Glibc
import TestSupport
import Testing

@testable import Capture

/// The staged writer of the streaming capture: whole blocks (direct where the file system allows it), the tail at a
/// flush, the same bytes in the file whatever the mix, and pipes written in sequence.
struct StagedFileTests {
    /// Seeded bytes, so that a block written twice or out of place shows as a difference.
    private static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = seed
        return (0..<count).map { _ in
            generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: generator >> 56)
        }
    }

    private static func create(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0, "open \(path): errno \(errno)")
        return descriptor
    }

    private static func size(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : -1
    }

    @Test(arguments: ["tmp", "shm"])
    func piecesFlushesAndBlocksLeaveExactlyTheBytesAppended(folderKind: String) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let base = folderKind == "tmp" ? folder.path : "/dev/shm"
        let path = base + "/staged-\(getpid())-\(folderKind).bin"
        defer { unlink(path) }
        let descriptor = try Self.create(path)
        defer { close(descriptor) }
        let head = Array("HEAD".utf8)
        let file = StagedFile(path: path, descriptor: descriptor, head: head)
        if folderKind == "tmp" { #expect(file.writesDirectly, "ext4 (this machine's /tmp) takes O_DIRECT") }
        var expected = head
        // Pieces of odd sizes, a flush in the middle of a block, then more: the tail written by the flush is
        // rewritten by the next direct block with the same bytes.
        for (index, count) in [1, 4095, 70_000, 1_000_003, 17, 2_500_000, 65_549].enumerated() {
            let piece = Self.bytes(count, seed: UInt64(index))
            #expect(piece.withUnsafeBytes { file.append($0) } == nil)
            expected += piece
            if index == 2 {
                #expect(file.flush() == nil)
                #expect(Self.size(path) == expected.count, "a flush makes the file whole")
            }
        }
        let beforeFlush = Self.size(path)
        #expect(beforeFlush < expected.count, "the tail waits for the flush")
        #expect(file.flush() == nil)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test func aPipeIsWrittenInSequenceWithNothingTwice() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let collected = Collected()
        let done = DispatchSemaphore(value: 0)
        Thread {
            collected.data = reader.readDataToEndOfFile()
            done.signal()
        }.start()
        let file = StagedFile(path: "/dev/fd/\(ends[1])", descriptor: ends[1], head: [9, 9])
        #expect(!file.writesDirectly)
        var expected: [UInt8] = [9, 9]
        for (index, count) in [10, 1_500_000, 3, 900_000].enumerated() {
            let piece = Self.bytes(count, seed: UInt64(100 + index))
            #expect(piece.withUnsafeBytes { file.append($0) } == nil)
            expected += piece
            if index == 1 { #expect(file.flush() == nil) }
        }
        #expect(file.flush() == nil)
        close(ends[1])
        #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
        #expect(Array(collected.data) == expected)
    }

    @Test func aFailedWriteReturnsItsErrno() throws {
        let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let file = StagedFile(path: "/dev/full", descriptor: descriptor, head: [])
        #expect([1, 2, 3].withUnsafeBytes { file.append($0) } == nil, "staged, not written yet")
        #expect(file.flush() == ENOSPC)
    }
}

/// Bytes a reader thread collected.
private final class Collected: @unchecked Sendable {
    var data = Data()
}
