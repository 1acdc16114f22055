import FaultEngine
import ProxyTranscript

/// Carries out a `ConnectionFlow`: feeds it inputs, keeps the actions it asks for, and writes its lanes to the two
/// legs in one order, the same for every driver: `ProxyConnection` over sockets, the fuzz target and the tests over
/// memory (`FlowLegs`). The flow's lanes, events and deadlines are reached only through it.
///
/// A relay round, in this order (`ProxyConnection.relay`), stopping as soon as the flow asks for an action
/// (`hasPending`):
/// ```
///  1. messages from other threads, when woken                       ─▶ .message
///  2. writeLanes: events so far recorded; the server's lane written, then the client's (unless an action is
///     pending), each until its leg blocks, nothing is due or a cut is reached  ─▶ .shutDown, .reachedCut
///     then, with no action pending                                  ─▶ .wrote, and its events recorded
///  3. poll the legs `wantsRead` names, and those blocked on a write, until `deadline`
///  4. read each ready leg                                           ─▶ .received, .ended, .failed
///  5. when `tickDue`                                                ─▶ .tick
/// ```
/// The flow relies on this order: a cut reached in step 2 that waits for the client's interim heads writes the
/// client's lane in the same round, and is checked again at the tick of step 5, after one poll and read.
public struct FlowDriver: Sendable {
    public private(set) var flow: ConnectionFlow
    private var pending: [ConnectionAction] = []

    public init(_ flow: ConnectionFlow) {
        self.flow = flow
    }

    /// Whether the flow asked for an action not taken yet: a relay round stops there.
    public var hasPending: Bool { !pending.isEmpty }

    /// Takes the oldest action the flow asked for.
    /// Takes what fired HTTP/2 faults ask of the stream's front (`ConnectionFlow.takeHTTP2Signals`).
    public mutating func takeHTTP2Signals() -> [HTTP2Signal] {
        flow.http2Signals.isEmpty ? [] : flow.takeHTTP2Signals()
    }

    public mutating func nextAction() -> ConnectionAction? {
        pending.isEmpty ? nil : pending.removeFirst()
    }

    /// Feeds one input at the legs' time: capture marks go to the legs at once, the other actions wait their turn.
    public mutating func feed(_ input: ConnectionInput, budget: some FaultBudgetAccess, legs: inout some FlowLegs) {
        for action in flow.handle(input, at: legs.now, budget: budget) {
            if case .capture(let mark) = action { legs.mark(mark) } else { pending.append(action) }
        }
    }

    /// Step 2 of a round: writes the server's lane, then the client's, then reports `.wrote`. A write joins due
    /// byte items up to `limit` bytes (a response's head and a small body leave in one write).
    public mutating func writeLanes(limit: Int, budget: some FaultBudgetAccess, legs: inout some FlowLegs) {
        // Recorded before the bytes they describe are written, so the transcript never lags the peers (a body range
        // still growing may wait up to ConnectionFlow.bodyEventAge).
        legs.record(flow.takeEvents(at: legs.now))
        write(to: .upstream, limit: limit, budget: budget, legs: &legs)
        if pending.isEmpty { write(to: .client, limit: limit, budget: budget, legs: &legs) }
        guard pending.isEmpty else { return }
        // Faults whose action the writes just put on the wire; the ends both peers reached.
        feed(.wrote, budget: budget, legs: &legs)
        legs.record(flow.takeEvents(at: legs.now))
    }

    /// Records the events the flow holds: with `now`, a body range still growing waits (as in a relay round);
    /// without, everything goes (after an action outside the relay rounds).
    public mutating func recordEvents(at now: Duration? = nil, legs: inout some FlowLegs) {
        legs.record(flow.takeEvents(at: now))
    }

    /// Writes `side`'s lane until its leg blocks or fails, nothing is due, or a cut is reached.
    private mutating func write(
        to side: FlowSide, limit: Int, budget: some FaultBudgetAccess, legs: inout some FlowLegs
    ) {
        while case let now = legs.now, let item = withLane(to: side, { $0.next(at: now) }) {
            switch item {
            case .bytes(let bytes):
                let run = withLane(to: side) { $0.nextBytes(at: now, limit: limit) }
                switch legs.write(run.count > 1 ? ArraySlice(run.joined()) : bytes, to: side) {
                case .done(let count): withLane(to: side) { $0.consume(count) }
                case .blocked: return
                case .failed: return feed(.writeFailed(side), budget: budget, legs: &legs)
                }
            case .endStream:
                switch legs.shutDown(side) {
                case .blocked: return
                case .done: feed(.shutDown(side), budget: budget, legs: &legs)
                case .failed: break
                }
                withLane(to: side) { $0.pop() }
            case .close, .reset:
                return feed(.reachedCut(item), budget: budget, legs: &legs)
            }
        }
    }

    /// Whether step 3 polls `side` for reading: the flow reads it, and the lane it feeds holds less than
    /// `capacity` bytes (backpressure).
    public func wantsRead(_ side: FlowSide, capacity: Int) -> Bool {
        flow.reads(side) && room(from: side, capacity: capacity) > 0
    }

    /// How many bytes a read of `side` may take: what the lane it feeds has room for below `capacity`.
    public func room(from side: FlowSide, capacity: Int) -> Int {
        max(0, capacity - lane(from: side).queuedBytes)
    }

    /// Whether step 5 ticks: the flow's own deadline or a delayed trigger of its faults has come.
    public func tickDue(at now: Duration) -> Bool {
        nextTick.map { $0 <= now } ?? false
    }

    /// Until when step 3 may wait: a lane's next release (not a lane whose leg is `blocked`: only writability helps
    /// it), or the next tick. Nil: until a leg is ready.
    public func deadline(after now: Duration, blocked: (FlowSide) -> Bool) -> Duration? {
        let releases = [FlowSide.upstream, .client].map { side in
            blocked(side) ? nil : lane(to: side).nextRelease(after: now)
        }
        return (releases + [nextTick]).compactMap { $0 }.min()
    }

    private var nextTick: Duration? {
        [flow.faultsDue, flow.deadline].compactMap { $0 }.min()
    }

    /// The lane written to `side`.
    public func lane(to side: FlowSide) -> Lane {
        side == .upstream ? flow.toUpstream : flow.toClient
    }

    /// The lane `side`'s bytes go into.
    func lane(from side: FlowSide) -> Lane {
        side == .client ? flow.toUpstream : flow.toClient
    }

    private mutating func withLane<T>(to side: FlowSide, _ body: (inout Lane) -> T) -> T {
        side == .upstream ? body(&flow.toUpstream) : body(&flow.toClient)
    }
}

/// The two legs a `FlowDriver` writes a flow's lanes to, the capture and transcript it reports to, and the clock it
/// reads: sockets (`ProxyConnection`), or memory (the tests, the fuzz target).
public protocol FlowLegs {
    /// The flow's clock now.
    var now: Duration { get }
    /// Writes (a prefix of) `bytes` to `side`.
    mutating func write(_ bytes: ArraySlice<UInt8>, to side: FlowSide) -> FlowWrite
    /// Shuts down `side`'s write side (a FIN, after a TLS close_notify).
    mutating func shutDown(_ side: FlowSide) -> FlowWrite
    /// Writes a FIN or RST into the decrypted capture, where it happened.
    mutating func mark(_ mark: CaptureMark)
    /// Keeps transcript events the flow recorded.
    mutating func record(_ events: [TranscriptEvent])
}

/// How a write to a leg went.
public enum FlowWrite: Sendable, Equatable {
    /// `count` bytes were written (a shutdown: 0).
    case done(Int)
    /// The leg takes nothing more now: the driver waits for it to become writable.
    case blocked
    /// The leg failed (a shutdown that failed is not retried).
    case failed
}
