import Glibc
import HTTPExchange
import ResumableUpload
import SquallNet
import Synchronization
import UploadStore

/// One upload resource as the server runs it: its state machine, and the request currently streaming into it.
///
/// Every event of the machine and every disk write for the upload happen under the slot's lock, so the machine's
/// offset never runs ahead of the file. A request that starts a body takes a new `generation`; when a later
/// request aborts it (§3.9), the generation moves on and the earlier connection's thread, seeing a stale
/// generation, leaves the machine and the store alone.
final class UploadSlot: Sendable {
    struct State {
        var machine: UploadResourceStateMachine
        /// Bumped whenever a request starts a body or is aborted.
        var generation: UInt64 = 0
        /// What carries the request streaming into the upload (a socket, an HTTP/2 stream), ended when a later
        /// request aborts it.
        var streaming: (any ExchangeChannel)?
        /// The store writer of that request.
        var writer: UploadWriter?
        /// The running hashes of that request's content, for its `Content-Digest` (with the generation they are for).
        var contentHashes: ContentHashes?
    }

    let id: String
    /// The principal that created the upload; to any other the upload does not exist.
    let principal: String?
    let state: Mutex<State>

    init(id: String, principal: String?, machine: UploadResourceStateMachine) {
        self.id = id
        self.principal = principal
        self.state = Mutex(State(machine: machine))
    }
}

/// The upload resources of this run, by id: created by it, or restored from the store on first use.
final class UploadRegistry: Sendable {
    private let slots = Mutex<[String: UploadSlot]>([:])

    /// The slot of `id`, restored with `restore` (once, under the registry's lock) when this run has not seen it.
    func slot(_ id: String, restore: (String) -> UploadSlot?) -> UploadSlot? {
        slots.withLock { slots in
            if let slot = slots[id] { return slot }
            let restored = restore(id)
            slots[id] = restored
            return restored
        }
    }

    func add(_ slot: UploadSlot) {
        slots.withLock { $0[slot.id] = slot }
    }

    /// Whether a request is streaming into upload `id` right now.
    func isStreaming(_ id: String) -> Bool {
        guard let slot = slots.withLock({ $0[id] }) else { return false }
        return slot.state.withLock { $0.streaming != nil }
    }

    /// Forgets the slots of `ids` (uploads the retention sweep removed from the store).
    func remove(_ ids: [String]) {
        slots.withLock { slots in
            for id in ids { slots[id] = nil }
        }
    }
}

extension UploadSlot {
    /// How long a request taking over the upload waits for a stream whose peer is gone to store what it had
    /// received.
    static let closedStreamPatience = Duration.seconds(1)

    /// Before a later request takes the upload over (which ends the current stream and drops what its socket has
    /// not read): when the current stream's peer is already gone (a cut: its RST or FIN has arrived), the bytes it
    /// sent before the cut still wait in that socket; its own thread reads and stores them and then ends, and
    /// this waits for that (at most `closedStreamPatience`). A live stream is taken over at once.
    func waitForClosedStream(besides channel: any ExchangeChannel) {
        let deadline = ContinuousClock.now + Self.closedStreamPatience
        while ContinuousClock.now < deadline {
            guard let streaming = state.withLock({ $0.streaming }), streaming !== channel, streaming.peerHasClosed
            else { return }
            // The other thread is draining that socket; look again in a millisecond.
            usleep(1000)
        }
    }

    /// The slot of an upload that an earlier run of the server left in the store: idle, at its durable offset,
    /// `max-age` counted from its creation. Nil for plain or cancelled uploads, and for records whose facts
    /// contradict each other.
    static func restore(_ record: UploadRecord, location: String, configuration: UploadProtocolConfiguration)
        -> UploadSlot?
    {
        guard !record.cancelled, let raw = record.interopVersion, InteropVersion(rawValue: raw) != nil,
            let machine = UploadResourceStateMachine.restore(
                id: record.id, location: location, offset: record.durableOffset, length: record.length,
                complete: record.complete, createdAt: .seconds(record.createdAt), configuration: configuration)
        else { return nil }
        return UploadSlot(id: record.id, principal: record.principal, machine: machine)
    }
}
