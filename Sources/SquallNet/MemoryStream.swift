import CSystem
import Glibc
import Synchronization

/// One end of two connected byte streams in memory, for two threads of one process: what one end writes, the other
/// reads, as over a socket pair, without the kernel's copies. Content can be handed over whole (`send`, `take`): the
/// chunks move from one thread to the other uncopied.
///
/// Each end has an eventfd as its `fileDescriptor`, readable while the end is ready for what its owner last said it
/// waits for (`pollInterest`): bytes or the end to read, room to write. So it is polled as a socket is, for the
/// interest `pollInterest` gives.
///
/// - `shutdownWrite`: the other end reads what was written, then its end.
/// - `close`: the same; the other end's writes fail.
/// - `abort`: the other end reads what was written, then a failure (as after a TCP reset that came after the data).
///
/// At most `capacity` bytes wait in each direction; a write finds room for part of its bytes or none.
public final class MemoryStream: ByteStream, @unchecked Sendable {
    /// A direction's bytes, written and not yet read, and how it ended.
    struct Direction {
        var chunks: [ArraySlice<UInt8>] = []
        var count = 0
        /// The writer shut its side or closed: the reader reads the rest, then the end.
        var ended = false
        /// The writer aborted: the reader reads the rest, then a failure.
        var reset = false
        /// The reader closed: writes fail.
        var readerGone = false
    }

    struct State {
        /// 0: from end 0 to end 1; 1: from end 1 to end 0.
        var directions = [Direction(), Direction()]
        /// What each end's owner waits for, and whether its eventfd is signalled now.
        var interest: [IOInterest] = [[], []]
        var signalled = [false, false]
    }

    final class Shared: Sendable {
        let state = Mutex(State())
        let descriptors: [Int32]
        let capacity: Int

        init(descriptors: [Int32], capacity: Int) {
            self.descriptors = descriptors
            self.capacity = capacity
        }

        deinit {
            for descriptor in descriptors { Glibc.close(descriptor) }
        }

        /// Signals or clears each end's eventfd to match what it waits for; called with the state locked, after
        /// every change.
        func settle(_ state: inout State) {
            for end in 0..<2 {
                let ready = Self.isReady(end, in: state, capacity: capacity)
                guard ready != state.signalled[end] else { continue }
                state.signalled[end] = ready
                var value: UInt64 = 1
                if ready {
                    _ = Glibc.write(descriptors[end], &value, 8)
                } else {
                    _ = Glibc.read(descriptors[end], &value, 8)
                }
            }
        }

        static func isReady(_ end: Int, in state: State, capacity: Int) -> Bool {
            let inbound = state.directions[1 - end]
            let outbound = state.directions[end]
            let interest = state.interest[end]
            if interest.contains(.read) && (inbound.count > 0 || inbound.ended || inbound.reset) { return true }
            if interest.contains(.write) && (outbound.count < capacity || outbound.readerGone) { return true }
            return false
        }
    }

    private let shared: Shared
    private let end: Int
    private let closed = Atomic(false)

    private init(shared: Shared, end: Int) {
        self.shared = shared
        self.end = end
    }

    /// An end let go without a close is aborted: its other end is never left waiting.
    deinit {
        finish(reset: true)
    }

    /// Two connected ends; at most `capacity` bytes wait in each direction.
    public static func pair(capacity: Int) throws -> (MemoryStream, MemoryStream) {
        var descriptors: [Int32] = []
        for _ in 0..<2 {
            let descriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
            guard descriptor >= 0 else {
                for made in descriptors { Glibc.close(made) }
                throw NetError.system(.socket, "eventfd")
            }
            descriptors.append(descriptor)
        }
        let shared = Shared(descriptors: descriptors, capacity: capacity)
        return (MemoryStream(shared: shared, end: 0), MemoryStream(shared: shared, end: 1))
    }

    public var fileDescriptor: Int32 { shared.descriptors[end] }

    /// Always 0: what waits is found by polling, as on a socket.
    public var bufferedReadableCount: Int { 0 }

    /// Bytes waiting to be read at this end.
    public var readableCount: Int {
        shared.state.withLock { $0.directions[1 - end].count }
    }

    public func pollInterest(for interest: IOInterest) -> IOInterest {
        shared.state.withLock { state in
            guard state.interest[end] != interest else { return }
            state.interest[end] = interest
            shared.settle(&state)
        }
        return interest.isEmpty ? [] : .read
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome {
        var copied = 0
        let outcome = try take(max: buffer.count) { chunk in
            chunk.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[copied...]).copyMemory(from: source)
            }
            copied += chunk.count
        }
        if case .done = outcome { return .done(copied) }
        return outcome
    }

    /// Reads up to `limit` bytes as the chunks that were written (uncopied, at most `chunks` of them), each given to
    /// `body` in order.
    public func take(
        max limit: Int, chunks wanted: Int = .max, _ body: (ArraySlice<UInt8>) throws -> Void
    ) throws -> IOOutcome {
        let taken: [ArraySlice<UInt8>]
        let direction = 1 - end
        let result: Result<[ArraySlice<UInt8>], IOOutcomeOrFailure> = shared.state.withLock { state in
            guard !closed.load(ordering: .relaxed) else { return .failure(.failed) }
            // In place: the queue is never copied out of the state.
            guard state.directions[direction].count > 0 else {
                if state.directions[direction].reset { return .failure(.failed) }
                if state.directions[direction].ended { return .failure(.ended) }
                return .failure(.wouldBlock)
            }
            var chunks: [ArraySlice<UInt8>] = []
            var room = limit
            while room > 0, chunks.count < wanted, let first = state.directions[direction].chunks.first {
                if first.count <= room {
                    chunks.append(first)
                    state.directions[direction].chunks.removeFirst()
                    room -= first.count
                } else {
                    chunks.append(first.prefix(room))
                    state.directions[direction].chunks[0] = first.dropFirst(room)
                    room = 0
                }
            }
            state.directions[direction].count -= limit - room
            shared.settle(&state)
            return .success(chunks)
        }
        switch result {
        case .success(let chunks): taken = chunks
        case .failure(.wouldBlock): return .wouldBlock(.read)
        case .failure(.ended): return .endOfStream
        case .failure(.failed): throw NetError.system(.read, "memory stream reset")
        }
        var count = 0
        for chunk in taken {
            try body(chunk)
            count += chunk.count
        }
        return .done(count)
    }

    private enum IOOutcomeOrFailure: Error {
        case wouldBlock, ended, failed
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome {
        guard !bytes.isEmpty else { return .done(0) }
        return try send(ArraySlice(bytes.bindMemory(to: UInt8.self)))
    }

    /// Writes as much of `chunk` as there is room for, uncopied (the other end reads the same storage).
    public func send(_ chunk: ArraySlice<UInt8>) throws -> IOOutcome {
        guard !chunk.isEmpty else { return .done(0) }
        let result: Result<Int, IOOutcomeOrFailure> = shared.state.withLock { state in
            guard !closed.load(ordering: .relaxed) else { return .failure(.failed) }
            let outbound = (state.directions[end].readerGone, state.directions[end].ended, state.directions[end].reset)
            if outbound.0 || outbound.1 || outbound.2 { return .failure(.failed) }
            let room = shared.capacity - state.directions[end].count
            guard room > 0 else { return .failure(.wouldBlock) }
            let count = min(room, chunk.count)
            state.directions[end].chunks.append(chunk.prefix(count))
            state.directions[end].count += count
            shared.settle(&state)
            return .success(count)
        }
        switch result {
        case .success(let count): return .done(count)
        case .failure(.wouldBlock): return .wouldBlock(.write)
        case .failure: throw NetError.system(.write, "memory stream closed")
        }
    }

    public func shutdownWrite() throws -> IOOutcome {
        shared.state.withLock { state in
            state.directions[end].ended = true
            shared.settle(&state)
        }
        return .done(0)
    }

    public func close() {
        finish(reset: false)
    }

    public func abort() {
        finish(reset: true)
    }

    private func finish(reset: Bool) {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        shared.state.withLock { state in
            if reset { state.directions[end].reset = true } else { state.directions[end].ended = true }
            // What the other end wrote and this one never reads is let go.
            state.directions[1 - end].readerGone = true
            state.directions[1 - end].chunks = []
            state.directions[1 - end].count = 0
            state.interest[end] = []
            shared.settle(&state)
        }
    }
}
