import Dispatch
import Synchronization

/// How an `AcceptLoop` runs its connections.
public struct AcceptLoopConfiguration: Sendable {
    /// Most connections handled at once. Default 1024 (each costs a thread; `ulimit -n` is 20000).
    public var maximumConnections: Int
    /// What becomes of a connection that arrives while `maximumConnections` handlers run. Nil (the default): the
    /// loop stops accepting, and new connections wait unseen in the listen queue until a handler returns. Otherwise
    /// the loop goes on accepting and hands each such connection to `shed`, on a thread of its own, to answer and
    /// close (an HTTP listener's 503); at most `maximumShedding` run at once, and a connection beyond those is
    /// closed at once.
    public var shed: (@Sendable (Socket) -> Void)?
    /// Most `shed` calls running at once. Default 32.
    public var maximumShedding: Int
    /// Stack size of each connection thread. Default `ConnectionThread.defaultStackSize` (256 KiB).
    public var stackSize: Int
    /// Thread name prefix, for debuggers. Default "squall".
    public var name: String

    public init(
        maximumConnections: Int = 1024, stackSize: Int = ConnectionThread.defaultStackSize, name: String = "squall",
        shed: (@Sendable (Socket) -> Void)? = nil, maximumShedding: Int = 32
    ) {
        precondition(maximumConnections > 0, "an accept loop must allow at least one connection")
        self.maximumConnections = maximumConnections
        self.stackSize = stackSize
        self.name = name
        self.shed = shed
        self.maximumShedding = maximumShedding
    }
}

/// Owns a `TCPListener`, accepts on a thread of its own and hands each connection to `handler` on a new
/// `ConnectionThread`. The loop is ready when `init` returns; `address` has the bound port. At the connection
/// limit it either stops accepting or sheds what comes (`AcceptLoopConfiguration.shed`).
///
/// `stop()` closes the listener and waits for the accept thread; running handlers go on until they return
/// (`waitUntilIdle` waits for them). Dropping the loop stops it.
public final class AcceptLoop: Sendable {
    /// The bound address, with the real port when port 0 was asked for.
    public let address: SocketAddress
    private let core: AcceptCore
    private let acceptThread: ConnectionThread

    /// Starts accepting on `listener`.
    public init(
        listener: TCPListener, configuration: AcceptLoopConfiguration = AcceptLoopConfiguration(),
        handler: @escaping @Sendable (Socket) -> Void
    ) {
        let core = AcceptCore(listener: listener, configuration: configuration, handler: handler)
        self.address = listener.address
        self.core = core
        self.acceptThread = ConnectionThread(name: "\(configuration.name)-accept") { core.acceptUntilStopped() }
    }

    /// Binds `address` (port 0 picks a free port) and starts accepting.
    public convenience init(
        address: SocketAddress, configuration: AcceptLoopConfiguration = AcceptLoopConfiguration(),
        handler: @escaping @Sendable (Socket) -> Void
    ) throws {
        try self.init(listener: TCPListener(address: address), configuration: configuration, handler: handler)
    }

    deinit {
        stop()
    }

    /// Closes the listener and waits for the accept thread to end. Safe to call more than once.
    public func stop() {
        core.stop()
        acceptThread.join()
    }

    /// Handlers running now.
    public var activeConnections: Int { core.counts.withLock { $0.active } }
    /// Connections handed to the handler since the start (not those shed).
    public var acceptedConnections: Int { core.counts.withLock { $0.accepted } }
    /// The most handlers that ran at once.
    public var peakConnections: Int { core.counts.withLock { $0.peak } }
    /// Connections accepted over the limit and handed to `shed` (or closed at once) since the start.
    public var shedConnections: Int { core.counts.withLock { $0.shed } }

    /// Waits at most `timeout` until no handler runs; true when none does.
    public func waitUntilIdle(timeout: Duration) -> Bool {
        core.handlers.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.nanoseconds))) == .success
    }
}

/// What the accept thread and the handler threads share.
private final class AcceptCore: Sendable {
    struct Counts {
        var active = 0
        var accepted = 0
        var peak = 0
        var shed = 0
        var shedding = 0
        var stopping = false
        var release = BurstRelease()
    }

    let listener: TCPListener
    let configuration: AcceptLoopConfiguration
    let handler: @Sendable (Socket) -> Void
    let counts = Mutex(Counts())
    /// Signalled when a handler returns (a slot frees) and on `stop()`; only the accept thread waits on it.
    let slotFreed = DispatchSemaphore(value: 0)
    /// Entered per running handler.
    let handlers = DispatchGroup()

    init(listener: TCPListener, configuration: AcceptLoopConfiguration, handler: @escaping @Sendable (Socket) -> Void) {
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
    }

    func stop() {
        counts.withLock { $0.stopping = true }
        listener.close()
        slotFreed.signal()
    }

    func acceptUntilStopped() {
        while waitForSlot() {
            let socket: Socket
            do {
                socket = try listener.accept()
            } catch let error as NetError where error.code == .listenerClosed {
                return
            } catch {
                // Out of descriptors or memory: back off briefly instead of spinning.
                _ = slotFreed.wait(timeout: .now() + .milliseconds(50))
                continue
            }
            if !shedIfFull(socket) { start(socket) }
        }
    }

    /// Waits while every slot is taken (unless connections over the limit are shed); false once stopping.
    private func waitForSlot() -> Bool {
        while true {
            let (full, stopping) = counts.withLock { ($0.active >= configuration.maximumConnections, $0.stopping) }
            if stopping { return false }
            if !full || configuration.shed != nil { return true }
            slotFreed.wait()
        }
    }

    /// Hands `socket` to the shedder when every slot is taken (or closes it when the shedders are busy too); false
    /// when there is room for it.
    private func shedIfFull(_ socket: Socket) -> Bool {
        guard let shed = configuration.shed else { return false }
        let (full, room) = counts.withLock { counts -> (Bool, Bool) in
            guard counts.active >= configuration.maximumConnections else { return (false, false) }
            counts.shed += 1
            guard counts.shedding < configuration.maximumShedding else { return (true, false) }
            counts.shedding += 1
            return (true, true)
        }
        guard full else { return false }
        guard room else {
            socket.close()
            return true
        }
        handlers.enter()
        ConnectionThread(name: "\(configuration.name)-shed", stackSize: configuration.stackSize) {
            shed(socket)
            self.counts.withLock { $0.shedding -= 1 }
            self.handlers.leave()
        }
        return true
    }

    private func start(_ socket: Socket) {
        let number = counts.withLock { counts in
            counts.active += 1
            counts.accepted += 1
            counts.peak = max(counts.peak, counts.active)
            counts.release.opened(active: counts.active)
            return counts.accepted
        }
        handlers.enter()
        ConnectionThread(name: "\(configuration.name)-\(number)", stackSize: configuration.stackSize) {
            self.handler(socket)
            let release = self.counts.withLock { counts in
                counts.active -= 1
                return counts.release.closed(active: counts.active)
            }
            self.slotFreed.signal()
            self.handlers.leave()
            if release { BurstRelease.releaseFreeMemory() }
        }
    }
}
