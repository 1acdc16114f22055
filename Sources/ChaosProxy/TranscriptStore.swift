import Dispatch
import Glibc
import ProxyTranscript
import SquallCore
import SquallNet
import Synchronization

/// The proxy's transcript: kept in memory (bounded) for the harness and the control API, and, with a path,
/// written as JSON Lines as it grows, its first line the wall clock of the start (`started`); with a HAR path,
/// also as an HTTP Archive, an entry per exchange once its connection closed. Both are buffered; `close` on
/// shutdown writes the rest and ends the HAR.
final class TranscriptStore: Sendable {
    private struct State: Sendable {
        var transcript: Transcript
        var pending: [UInt8] = []
        var descriptor: Int32 = -1
        var har: HARRecorder
        var harPending: [UInt8] = []
        var harDescriptor: Int32 = -1
        /// Whether an entry was written: the next one needs a comma first.
        var harHasEntries = false
    }

    private let state: Mutex<State>
    /// Threads waiting in `wait(until:timeout:)`, woken on every append.
    private let waiters = Mutex<[DispatchSemaphore]>([])
    static let flushThreshold = 64 * 1024

    /// A store whose files (when given paths) date events from `startedAt`, the wall clock of the proxy's time 0
    /// in Unix microseconds.
    init(byteCap: Int?, path: String?, harPath: String? = nil, startedAt: Int64) throws(ChaosProxyError) {
        var initial = State(transcript: Transcript(byteCap: byteCap), har: HARRecorder(startedAt: startedAt))
        // 0600: request heads carry bearer tokens (`Authorization`) and the proxy's view of private uploads.
        if let path {
            initial.descriptor = try Self.open(path, option: "--transcript")
            let start = TranscriptEvent(time: .zero, connection: 0, kind: .started(unixMicroseconds: startedAt))
            initial.pending.append(contentsOf: (start.jsonLine() + "\n").utf8)
        }
        if let harPath {
            initial.harDescriptor = try Self.open(harPath, option: "--har")
            initial.harPending.append(contentsOf: HARRecorder.prologue(version: SquallVersion.current).utf8)
        }
        let opened = initial
        state = Mutex(opened)
    }

    private static func open(_ path: String, option: String) throws(ChaosProxyError) -> Int32 {
        let fd = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC)
        guard fd >= 0 else {
            throw ChaosProxyError(.transcriptFile, "\(option) \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    func append(_ events: [TranscriptEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events {
                state.transcript.append(event)
                if state.harDescriptor >= 0 { Self.addEntries(state.har.add(event), to: &state) }
                guard state.descriptor >= 0 else { continue }
                state.pending.append(contentsOf: event.jsonLine().utf8)
                state.pending.append(0x0A)
            }
            if state.pending.count >= Self.flushThreshold { Self.write(&state.pending, to: state.descriptor) }
            if state.harPending.count >= Self.flushThreshold { Self.write(&state.harPending, to: state.harDescriptor) }
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

    /// Flushes and closes the files: the HAR gets the entries of the connections still open, then its end.
    func close() {
        state.withLock { state in
            if state.harDescriptor >= 0 {
                Self.addEntries(state.har.finish(), to: &state)
                state.harPending.append(contentsOf: HARRecorder.epilogue.utf8)
                Self.write(&state.harPending, to: state.harDescriptor)
                Self.closeFile(&state.harDescriptor)
            }
            Self.write(&state.pending, to: state.descriptor)
            Self.closeFile(&state.descriptor)
        }
    }

    private static func addEntries(_ entries: [String], to state: inout State) {
        for entry in entries {
            if state.harHasEntries { state.harPending.append(contentsOf: ",\n".utf8) }
            state.harPending.append(contentsOf: entry.utf8)
            state.harHasEntries = true
        }
    }

    private static func closeFile(_ descriptor: inout Int32) {
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    private static func write(_ pending: inout [UInt8], to descriptor: Int32) {
        guard descriptor >= 0, !pending.isEmpty else { return }
        var written = 0
        pending.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if result > 0 {
                    written += result
                } else if result < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
