import Dispatch
import Glibc
import SquallNet
import Testing

/// How long any step of these tests may wait.
private let patience: Duration = .seconds(20)

/// Whether `stream`'s descriptor is ready now for `interest`, as its owner's poll would find it.
private func isReady(_ stream: MemoryStream, for interest: IOInterest) -> Bool {
    var entry = pollfd(
        fd: stream.fileDescriptor, events: Int16(POLLIN) | Int16(POLLOUT), revents: 0)
    let polled = stream.pollInterest(for: interest)
    entry.events = polled.contains(.read) ? Int16(POLLIN) : 0
    return poll(&entry, 1, 0) == 1
}

struct MemoryStreamTests {
    /// The descriptor is ready for what its owner waits for, and only then: bytes to read, room to write; a
    /// descriptor always ready would make the owner's poll loop spin.
    @Test func theDescriptorIsReadyForTheInterestGivenOnly() throws {
        let (mine, theirs) = try MemoryStream.pair(capacity: 8)
        #expect(!isReady(theirs, for: .read))
        #expect(try mine.send([1, 2, 3][...]) == .done(3))
        #expect(isReady(theirs, for: .read))
        // Bytes waiting do not make it ready for writing: there is room, which is.
        #expect(isReady(theirs, for: .write))
        #expect(!isReady(theirs, for: []))
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try theirs.read(into: $0) } == .done(3))
        #expect(buffer.prefix(3) == [1, 2, 3])
        #expect(!isReady(theirs, for: .read))

        // Full: not ready for writing until the other end takes some.
        #expect(try mine.send([UInt8](repeating: 9, count: 20)[...]) == .done(8))
        #expect(try mine.send([7][...]) == .wouldBlock(.write))
        #expect(!isReady(mine, for: .write))
        #expect(try theirs.take(max: 5) { _ in } == .done(5))
        #expect(isReady(mine, for: .write))
    }

    /// Chunks go across whole and in order, split only where a reader's limit falls; one given whole is the same
    /// storage on the other side.
    @Test func chunksGoAcrossUncopiedAndInOrder() throws {
        let (mine, theirs) = try MemoryStream.pair(capacity: 1 << 20)
        let first = [UInt8](repeating: 1, count: 1000)
        let second = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        #expect(try mine.send(first[...]) == .done(1000))
        #expect(try mine.send(second[...]) == .done(3000))
        var taken: [ArraySlice<UInt8>] = []
        #expect(try theirs.take(max: 2000) { taken.append($0) } == .done(2000))
        #expect(taken.map(\.count) == [1000, 1000])
        let same = taken[0].withUnsafeBufferPointer { a in
            first.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress }
        }
        #expect(same, "the first chunk is the array sent, not a copy")
        taken = []
        #expect(try theirs.take(max: .max, chunks: 1) { taken.append($0) } == .done(2000))
        #expect(Array(taken.joined()) == Array(second[1000...]))
        #expect(try theirs.take(max: .max) { _ in } == .wouldBlock(.read))
    }

    /// A write side shut or closed: the reader reads what was written, then the end; an abort: then a failure.
    /// Writes to an end that closed fail.
    @Test func endsComeAfterWhatWasWritten() throws {
        var buffer = [UInt8](repeating: 0, count: 16)
        let (a, b) = try MemoryStream.pair(capacity: 64)
        #expect(try a.send([5, 6][...]) == .done(2))
        #expect(try a.shutdownWrite() == .done(0))
        #expect(try buffer.withUnsafeMutableBytes { try b.read(into: $0) } == .done(2))
        #expect(try buffer.withUnsafeMutableBytes { try b.read(into: $0) } == .endOfStream)
        // The other direction still goes.
        #expect(try b.send([1][...]) == .done(1))
        #expect(try buffer.withUnsafeMutableBytes { try a.read(into: $0) } == .done(1))

        let (c, d) = try MemoryStream.pair(capacity: 64)
        #expect(try c.send([8][...]) == .done(1))
        c.abort()
        #expect(try buffer.withUnsafeMutableBytes { try d.read(into: $0) } == .done(1))
        #expect(throws: (any Error).self) { try buffer.withUnsafeMutableBytes { try d.read(into: $0) } }
        #expect(throws: (any Error).self) { try d.send([1][...]) }

        let (e, f) = try MemoryStream.pair(capacity: 64)
        f.close()
        #expect(throws: (any Error).self) { try e.send([1][...]) }
        #expect(try buffer.withUnsafeMutableBytes { try e.read(into: $0) } == .endOfStream)
    }

    /// An end let go without a close (its owner ended early) is aborted: the other end reads what was written, then
    /// a failure, and is never left waiting.
    @Test func anEndLetGoWithoutACloseIsAborted() throws {
        let survivor: MemoryStream
        do {
            let (gone, other) = try MemoryStream.pair(capacity: 64)
            survivor = other
            #expect(try gone.send([1][...]) == .done(1))
        }
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(try buffer.withUnsafeMutableBytes { try survivor.read(into: $0) } == .done(1))
        #expect(throws: (any Error).self) { try buffer.withUnsafeMutableBytes { try survivor.read(into: $0) } }
    }

    /// Two threads, each blocking on its poll: 8 MiB one way through a 64 KiB pair arrive whole and in order.
    @Test func twoThreadsStreamThroughAFullPair() throws {
        let (writer, reader) = try MemoryStream.pair(capacity: 64 * 1024)
        let content = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }
        let done = DispatchSemaphore(value: 0)
        let box = UncheckedSendable((writer, content))
        DispatchQueue.global().async {
            let (writer, content) = box.value
            try? writer.writeAll(content, deadline: .now + patience)
            try? writer.shutdownWrite(deadline: .now + patience)
            done.signal()
        }
        let received = try reader.readToEnd(limit: 16 << 20, deadline: .now + patience)
        #expect(done.wait(timeout: .now() + .seconds(20)) == .success)
        #expect(received.count == content.count)
        #expect(received == content)
    }
}

private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
