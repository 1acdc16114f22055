import ControlAPI
import FaultEngine
import ProxyFlow
import SquallNet
import Synchronization

/// A live connection as other threads see it: its inbox, the eventfd that wakes its poll loop, and counters.
final class ConnectionHandle: Sendable {
    let id: Int
    let listener: String
    let client: String
    let opened: ContinuousClock.Instant
    let mode: String
    /// Wakes the connection's poll loop when a message is queued (nil when no eventfd could be made).
    private let wake: WakeSignal?
    var wakeDescriptor: Int32 { wake?.fileDescriptor ?? -1 }
    let bytesUpstream = Atomic<Int64>(0)
    let bytesDownstream = Atomic<Int64>(0)
    let requests = Atomic<Int>(0)
    /// For an HTTP/2 stream's connection: the code its flow's `reset-stream` chose (`UInt32.max` while none did),
    /// set before its client side is cut, read by the front that resets the stream.
    let streamResetCode = Atomic<UInt32>(.max)
    /// For an HTTP/2 stream's connection: what its fired HTTP/2 faults ask of the front, and the front's wake-up.
    let http2Signals = Mutex<[HTTP2Signal]>([])
    /// For an HTTP/2 stream's connection: who claimed its request first, the connection forwarding a byte of it
    /// upstream (1: it may have been processed) or the front refusing it (2: it never reaches the upstream); 0 until
    /// either did. A claim is for good, so a refusal never lies (`claimForwarding`, `claimRefusal`).
    private let requestClaim = Atomic<UInt8>(0)
    let frontWake: WakeSignal?
    private let inbox = Mutex<[ConnectionMessage]>([])

    init(id: Int, listener: String, client: String, mode: String, frontWake: WakeSignal? = nil) {
        self.frontWake = frontWake
        self.id = id
        self.listener = listener
        self.client = client
        self.mode = mode
        self.opened = .now
        self.wake = try? WakeSignal()
    }

    /// Whether the connection may forward its request upstream (the front did not refuse it first); claims it.
    func claimForwarding() -> Bool {
        let (exchanged, current) = requestClaim.compareExchange(
            expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        return exchanged || current == 1
    }

    /// Whether the front may refuse the stream (no byte of its request went upstream); claims it.
    func claimRefusal() -> Bool {
        let (exchanged, current) = requestClaim.compareExchange(
            expected: 0, desired: 2, ordering: .acquiringAndReleasing)
        return exchanged || current == 2
    }

    /// Queues a message and wakes the connection's loop.
    func send(_ message: ConnectionMessage) {
        inbox.withLock { $0.append(message) }
        wake?.signal()
    }

    /// Takes the queued messages (the connection's own thread).
    func receive() -> [ConnectionMessage] {
        wake?.drain()
        return inbox.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }

    /// Counts bytes written to `side` (the proxy's totals add them up, see `ProxyCounters`).
    func account(_ bytes: Int, to side: FlowSide) {
        if side == .upstream {
            bytesUpstream.add(Int64(bytes), ordering: .relaxed)
        } else {
            bytesDownstream.add(Int64(bytes), ordering: .relaxed)
        }
    }

    var live: LiveConnection {
        LiveConnection(
            id: id, proxy: listener, client: client,
            age: Double((ContinuousClock.now - opened) / .milliseconds(1)) / 1000,
            bytesUpstream: bytesUpstream.load(ordering: .relaxed),
            bytesDownstream: bytesDownstream.load(ordering: .relaxed), requests: requests.load(ordering: .relaxed))
    }
}

/// Every live connection of the proxy by id, and the id counter (ids are unique across listeners).
final class ConnectionRegistry: Sendable {
    private let handles = Mutex<[Int: ConnectionHandle]>([:])
    private let lastID = Atomic<Int>(0)

    func nextID() -> Int {
        lastID.add(1, ordering: .relaxed).newValue
    }

    func insert(_ handle: ConnectionHandle) {
        handles.withLock { $0[handle.id] = handle }
    }

    func remove(_ id: Int) {
        _ = handles.withLock { $0.removeValue(forKey: id) }
    }

    func handle(_ id: Int) -> ConnectionHandle? {
        handles.withLock { $0[id] }
    }

    /// The live connections, oldest first; only `listener`'s when given.
    func all(listener: String? = nil) -> [ConnectionHandle] {
        handles.withLock { Array($0.values) }.filter { listener == nil || $0.listener == listener }.sorted {
            $0.id < $1.id
        }
    }
}
