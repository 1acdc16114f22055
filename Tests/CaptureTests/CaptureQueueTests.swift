import Foundation
import Testing

@testable import Capture

/// The hand-over from connection threads to the capture's writer thread: bounded, ordered, and never stuck.
struct CaptureQueueTests {
    static func batch(_ size: Int) -> PacketBatch {
        var batch = PacketBatch(time: PacketTimestamp(microsecondsSinceEpoch: 0), reserving: size)
        [UInt8](repeating: 7, count: size).withUnsafeBytes { batch.append($0) }
        return batch
    }

    @Test func aFullQueueHoldsTheProducerUntilTheWriterTakes() throws {
        let queue = CaptureQueue(limit: 100)
        queue.put(Self.batch(100))
        let putDone = DispatchSemaphore(value: 0)
        Thread {
            queue.put(Self.batch(10))
            putDone.signal()
        }.start()
        // Held: the queue is at its limit (a short, bounded look; the release below is what the test waits on).
        #expect(putDone.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
        let first = try #require(queue.take())
        #expect(first.map(\.bytes.count) == [100])
        queue.written()
        #expect(putDone.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(try #require(queue.take()).map(\.bytes.count) == [10])
        queue.written()
    }

    @Test func closeReleasesAWaitingProducerAndEndsTheWriterAfterTheRest() throws {
        let queue = CaptureQueue(limit: 10)
        queue.put(Self.batch(10))
        let putDone = DispatchSemaphore(value: 0)
        Thread {
            queue.put(Self.batch(5))
            putDone.signal()
        }.start()
        let writerDone = DispatchSemaphore(value: 0)
        let taken = TakenCounter()
        Thread {
            // Whether it takes before or after close begins, the producer is released (its batch written or
            // dropped) and the writer ends once the queue is drained.
            while let batches = queue.take() {
                taken.add(batches.count)
                queue.written()
            }
            writerDone.signal()
        }.start()
        queue.close()
        #expect(putDone.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(writerDone.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(taken.count >= 1)
        queue.put(Self.batch(1))
        #expect(queue.take() == nil)
    }

    @Test func anIdleWriterIsAskedToFlushAndAnEmptyQueueOtherwiseKeepsItWaiting() throws {
        let queue = CaptureQueue(limit: 1 << 20)
        #expect(try #require(queue.take(idleFlush: .milliseconds(1))).isEmpty, "nothing came: flush")
        queue.written()
        queue.put(Self.batch(10))
        #expect(try #require(queue.take(idleFlush: .seconds(60))).map(\.bytes.count) == [10], "batches first")
        queue.written()
    }

    @Test func syncAsksTheWriterToFlushAndWaitsForIt() throws {
        let queue = CaptureQueue(limit: 1 << 20)
        let flushes = TakenCounter()
        Thread {
            // A writer that never flushes on its own: only sync's empty take makes it.
            while let batches = queue.take() {
                if batches.isEmpty { flushes.add(1) }
                queue.written()
            }
        }.start()
        queue.put(Self.batch(10))
        queue.sync()
        #expect(flushes.count == 1)
        queue.close()
    }

    @Test func syncWaitsForWhatWasQueuedToBeWritten() throws {
        let queue = CaptureQueue(limit: 1 << 20)
        let written = TakenCounter()
        Thread {
            while let batches = queue.take() {
                written.add(batches.count)
                queue.written()
            }
        }.start()
        for _ in 0..<50 { queue.put(Self.batch(1000)) }
        queue.sync()
        #expect(written.count == 50)
        queue.close()
    }
}

/// A count shared with a writer thread.
final class TakenCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int { lock.withLock { value } }

    func add(_ amount: Int) {
        lock.withLock { value += amount }
    }
}
