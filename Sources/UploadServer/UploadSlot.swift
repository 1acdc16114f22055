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
    let state: Mutex<State>

    init(id: String, machine: UploadResourceStateMachine) {
        self.id = id
        self.state = Mutex(State(machine: machine))
    }
}

/// Every upload resource the server has created since it started, by id.
final class UploadRegistry: Sendable {
    private let slots = Mutex<[String: UploadSlot]>([:])

    func slot(_ id: String) -> UploadSlot? {
        slots.withLock { $0[id] }
    }

    func add(_ slot: UploadSlot) {
        slots.withLock { $0[slot.id] = slot }
    }
}
