import Foundation
import PacketSynthesis

/// The packets of one capture event (a read, a write, a close), synthesized on the connection's thread and
/// written by the capture's writer thread.
struct PacketBatch: Sendable {
    var time: PacketTimestamp
    /// The packets, back to back.
    var bytes: [UInt8] = []
    /// Each packet's length, in order.
    var lengths: [Int] = []

    init(time: PacketTimestamp, reserving capacity: Int, reusing storage: [UInt8] = []) {
        self.time = time
        bytes = storage
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ packet: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: packet)
        lengths.append(packet.count)
    }
}

/// Hands packet batches from connection threads to one writer thread, so that the file writes (the capture's
/// main cost: the kernel copies every byte into the page cache) overlap with the proxy's relaying instead of
/// stalling it. Bounded: a producer waits while `limit` bytes are queued, so memory stays flat however much is
/// captured (at most about twice `limit`: what the writer took and a queue filled again, plus one batch per
/// waiting producer), and a slow disk slows the proxy down rather than losing packets.
final class CaptureQueue: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var batches: [PacketBatch] = []
    private var queuedBytes = 0
    private var closing = false
    private var finished = false
    /// The writer holds batches it took and has not written yet; `sync()` waits for this to end and the queue
    /// to be empty.
    private var writing = false
    /// `sync()` waits for the writer to flush.
    private var flushWanted = false
    private let limit: Int
    /// Buffers of written batches, for the next batches: a fresh 256 KiB buffer per read would cost the proxy's
    /// thread an allocation and its page faults each time.
    private var spare: [[UInt8]] = []
    private static let spareCount = 16

    init(limit: Int) {
        self.limit = limit
    }

    /// Queues `batch` (waiting while the queue is full), stamped with the wall clock once it is in: the file
    /// stays in time order across connections. Dropped once the queue is closing.
    func put(_ batch: PacketBatch) {
        var batch = batch
        condition.lock()
        defer { condition.unlock() }
        while queuedBytes >= limit && !closing { condition.wait() }
        guard !closing else { return }
        batch.time = .now()
        batches.append(batch)
        queuedBytes += batch.bytes.count
        condition.broadcast()
    }

    /// The writer's side: every queued batch, waiting while there is none; nil once closed and drained. An empty
    /// array asks the writer to flush what it wrote: `idleFlush` passed with nothing queued, or `sync()` waits for
    /// it.
    func take(idleFlush: Duration? = nil) -> [PacketBatch]? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = idleFlush.map { Date(timeIntervalSinceNow: Double($0 / .microseconds(1)) / 1e6) }
        while batches.isEmpty && !closing && !flushWanted {
            if let deadline {
                guard condition.wait(until: deadline) else { break }
            } else {
                condition.wait()
            }
        }
        if batches.isEmpty && closing {
            finished = true
            condition.broadcast()
            return nil
        }
        if batches.isEmpty { flushWanted = false }
        let taken = batches
        batches = []
        queuedBytes = 0
        writing = true
        condition.broadcast()
        return taken
    }

    /// A buffer to build the next batch in (empty, with capacity when one is spare).
    func buffer() -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return spare.popLast() ?? []
    }

    /// The writer wrote (and flushed) what it took last; `buffers` are theirs, for reuse.
    func written(returning buffers: [[UInt8]] = []) {
        condition.lock()
        for buffer in buffers where spare.count < Self.spareCount { spare.append(buffer) }
        writing = false
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until everything queued before the call is written and flushed.
    func sync() {
        condition.lock()
        flushWanted = true
        condition.broadcast()
        while (!batches.isEmpty || writing || flushWanted) && !finished { condition.wait() }
        condition.unlock()
    }

    /// Stops taking batches; the writer drains what is queued, then `take()` returns nil. Waits for that.
    func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
