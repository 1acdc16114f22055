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
        /// The socket of the request streaming into the upload, shut down when a later request aborts it.
        var streaming: Socket?
        /// The store writer of that request.
        var writer: UploadWriter?
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
    /// Rebuilds the slot of an upload that an earlier run of the server left in the store, by replaying its
    /// history through the state machine: the creation, then appends of at most `max-append-size` bytes up to the
    /// durable offset, the last one completing when the upload is complete. Times are the creation's, so
    /// `max-age` still counts from it. Nil for plain or cancelled uploads, and for ones the rules now reject.
    static func restore(_ record: UploadRecord, location: String, configuration: UploadProtocolConfiguration)
        -> UploadSlot?
    {
        guard !record.cancelled, let raw = record.interopVersion, let version = InteropVersion(rawValue: raw) else {
            return nil
        }
        let target = record.durableOffset
        let step = max(configuration.limits.maxAppendSize ?? target, 1)
        let now = Int64(record.createdAt)
        let creation = CreationRequest(
            version: version, complete: record.complete && target <= step, uploadLength: record.length)
        guard
            var machine = try? UploadResourceStateMachine.create(
                id: record.id, location: location, request: creation, configuration: configuration, now: now
            ).machine
        else { return nil }
        while true {
            let count = min(step, target - machine.offset)
            if count > 0 { _ = try? machine.bodyReceived(byteCount: count, now: now) }
            guard (try? machine.bodyEnded(now: now)) != nil, machine.offset < target else { break }
            let last = record.complete && target - machine.offset <= step
            let append = AppendRequest(version: version, offset: machine.offset, complete: last)
            guard machine.startAppend(append, now: now).isEmpty else { return nil }
        }
        guard machine.offset == target, machine.isComplete == record.complete, !machine.isReceiving else {
            return nil
        }
        return UploadSlot(id: record.id, principal: record.principal, machine: machine)
    }
}
