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
        var file: BufferedFile?
        var har: HARFile?
    }

    /// The HAR file: its recorder, and whether an entry was written (the next one needs a comma first).
    private struct HARFile: Sendable {
        var recorder: HARRecorder
        var file: BufferedFile
        var hasEntries = false

        /// Records `event`, writing the entries it completed.
        mutating func record(_ event: TranscriptEvent) {
            add(recorder.add(event))
        }

        /// Writes the entries of the connections still open and the archive's end, and closes the file.
        mutating func end() {
            add(recorder.finish())
            file.append(HARRecorder.epilogue)
            file.close()
        }

        private mutating func add(_ entries: [String]) {
            for entry in entries {
                file.append((hasEntries ? ",\n" : "") + entry)
                hasEntries = true
            }
        }
    }

    private let state: Mutex<State>
    /// Threads waiting in `wait(until:timeout:)`, woken on every append.
    private let waiters = Mutex<[DispatchSemaphore]>([])

    /// A store whose files (when given paths) date events from `startedAt`, the wall clock of the proxy's time 0
    /// in Unix microseconds.
    init(byteCap: Int?, path: String?, harPath: String? = nil, startedAt: Int64) throws(ChaosProxyError) {
        var initial = State(transcript: Transcript(byteCap: byteCap))
        if let path {
            var file = try BufferedFile(path: path, option: "--transcript")
            file.append(
                TranscriptEvent(time: .zero, connection: 0, kind: .started(unixMicroseconds: startedAt)).jsonLine()
                    + "\n")
            initial.file = file
        }
        if let harPath {
            var file = try BufferedFile(path: harPath, option: "--har")
            file.append(HARRecorder.prologue(version: SquallVersion.current))
            initial.har = HARFile(recorder: HARRecorder(startedAt: startedAt), file: file)
        }
        let opened = initial
        state = Mutex(opened)
    }

    func append(_ events: [TranscriptEvent]) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events {
                state.transcript.append(event)
                state.har?.record(event)
                state.file?.append(event.jsonLine() + "\n")
            }
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
            state.har?.end()
            state.har = nil
            state.file?.close()
            state.file = nil
        }
    }
}

/// A file the proxy writes as it goes (mode 0600: request heads carry bearer tokens, `Authorization`, and the
/// proxy's view of private uploads): text buffered, written once `flushThreshold` bytes wait and at `close`.
private struct BufferedFile: Sendable {
    static let flushThreshold = 64 * 1024
    let descriptor: Int32
    private var pending: [UInt8] = []

    /// Creates or truncates `path`; a failure names `option`, the flag that gave the path.
    init(path: String, option: String) throws(ChaosProxyError) {
        descriptor = PrivateFile.open(path, flags: O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else {
            throw ChaosProxyError(.transcriptFile, "\(option) \(path): \(String(cString: strerror(errno)))")
        }
    }

    mutating func append(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= Self.flushThreshold { flush() }
    }

    mutating func flush() {
        FileDescriptor.writeAll(pending, to: descriptor)
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes the rest, syncs and closes.
    mutating func close() {
        flush()
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
    }
}
