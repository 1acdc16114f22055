import Dispatch
import Glibc
import ProxyTranscript
import SquallNet
import Synchronization

/// The proxy's transcript: kept in memory (bounded) for the harness and the control API, and, with a path,
/// written as JSON Lines as it grows (buffered; `flush` on shutdown writes the rest).
final class TranscriptStore: Sendable {
    private struct State: Sendable {
        var transcript: Transcript
        var pending: [UInt8] = []
        var descriptor: Int32 = -1
    }

    private let state: Mutex<State>
    /// Threads waiting in `wait(until:timeout:)`, woken on every append.
    private let waiters = Mutex<[DispatchSemaphore]>([])
    static let flushThreshold = 64 * 1024

    init(byteCap: Int?, path: String?) throws(ChaosProxyError) {
        var initial = State(transcript: Transcript(byteCap: byteCap))
        if let path {
            // 0600: request heads carry bearer tokens (`Authorization`) and the proxy's view of private uploads.
            let fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC)
            guard fd >= 0 else {
                throw ChaosProxyError(.transcriptFile, "--transcript \(path): \(String(cString: strerror(errno)))")
            }
            initial.descriptor = fd
        }
        state = Mutex(initial)
    }

    func append(_ events: [TranscriptEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events {
                state.transcript.append(event)
                guard state.descriptor >= 0 else { continue }
                state.pending.append(contentsOf: event.jsonLine().utf8)
                state.pending.append(0x0A)
            }
            if state.pending.count >= Self.flushThreshold { Self.write(&state) }
        }
        for waiter in waiters.withLock({ $0 }) { waiter.signal() }
    }

    /// Wakes every `wait(until:timeout:)` to check its condition again (something else it looks at changed).
    func wakeWaiters() {
        for waiter in waiters.withLock({ $0 }) { waiter.signal() }
    }

    /// Waits until `condition` holds for the transcript, or `timeout` passes; returns whether it held.
    func wait(until condition: (Transcript) -> Bool, timeout: Duration) -> Bool {
        waitUntil(timeout: timeout) { condition(transcript) }
    }

    /// Waits until more than `position` events were ever appended, or `timeout` passes; returns whether they were.
    /// Reads the count under the lock, without a copy of the transcript (a copy held across an append would make
    /// the appending connection copy every kept event).
    func wait(forAppendedBeyond position: Int, timeout: Duration) -> Bool {
        waitUntil(timeout: timeout) { state.withLock { $0.transcript.appendedCount > position } }
    }

    private func waitUntil(timeout: Duration, _ holds: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        let waiter = DispatchSemaphore(value: 0)
        waiters.withLock { $0.append(waiter) }
        defer { waiters.withLock { list in list.removeAll { $0 === waiter } } }
        while !holds() {
            let left = deadline - .now
            guard left > .zero else { return false }
            let nanoseconds = Int(left / .nanoseconds(1))
            _ = waiter.wait(timeout: .now() + .nanoseconds(nanoseconds))
        }
        return true
    }

    func append(_ event: TranscriptEvent) {
        append([event])
    }

    /// How many events are kept, their estimated bytes, and how many were dropped past the bound.
    var size: (events: Int, bytes: Int, dropped: Int) {
        state.withLock { ($0.transcript.count, $0.transcript.keptBytes, $0.transcript.droppedCount) }
    }

    /// A copy of the kept events.
    var transcript: Transcript { state.withLock { $0.transcript } }

    /// The kept events from absolute index `from` on (at most `limit` of them; nil: all) as JSON Lines, and the index
    /// after the last one given. Only those events are copied under the lock and they are formatted after it, so
    /// that a reader never holds up the connections that append.
    func lines(from index: Int, limit: Int? = nil) -> (lines: String, next: Int) {
        let (events, first) = state.withLock { state in
            let since = state.transcript.events(since: index)
            let first = state.transcript.appendedCount - since.count
            return (Array(limit.map { since.prefix($0) } ?? since), first)
        }
        return (events.jsonLines(), first + events.count)
    }

    /// Flushes and closes the file.
    func close() {
        state.withLock { state in
            Self.write(&state)
            if state.descriptor >= 0 {
                _ = fsync(state.descriptor)
                _ = Glibc.close(state.descriptor)
                state.descriptor = -1
            }
        }
    }

    private static func write(_ state: inout State) {
        guard state.descriptor >= 0, !state.pending.isEmpty else { return }
        var written = 0
        state.pending.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = Glibc.write(state.descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result > 0 {
                    written += result
                } else if result < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        state.pending.removeAll(keepingCapacity: true)
    }
}
