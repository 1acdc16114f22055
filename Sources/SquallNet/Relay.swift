import CSystem
import Glibc

/// Copies bytes both ways between two `ByteStream`s (plain or TLS) on the calling thread, with one `poll()`
/// loop over both descriptors, until both directions end or something stops it.
///
/// ```
///              ┌──────────── toUpstream: RelayPipe (bounded buffer) ────────────┐
/// downstream ──┤                                                               ├── upstream
///  (client)    └─────────── toDownstream: RelayPipe (bounded buffer) ───────────┘  (server)
///                    poll set: downstream fd, upstream fd, RelayControl's eventfd
/// ```
///
/// - Both descriptors are switched to non-blocking. Each operation that would block records the readiness it
///   wants (a TLS read may want writability, a TLS write readability); the poll set is the union of those
///   interests, and bytes a stream has already decrypted (`bufferedReadableCount`) are read without polling.
/// - Backpressure: a direction stops reading while its buffer is full and resumes when a write drains it.
/// - Half-close: when one side ends its stream, what is buffered for the other side is delivered, then the
///   other side's write side is shut down; the opposite direction goes on until it ends too.
/// - A reset or error on one side aborts both sides (the other one gets a TCP RST, as a real network would
///   show it). Cancellation, the idle timeout and the time limit close both sides (a FIN, or an RST from the
///   kernel when received bytes were still unread).
///
/// When `run` returns, both streams are closed or aborted. Use one thread per relay; never call `run` from
/// Swift's cooperative pool.
public struct Relay: Sendable {
    public var configuration: RelayConfiguration

    public init(configuration: RelayConfiguration = RelayConfiguration()) {
        self.configuration = configuration
    }

    /// Relays until both directions end, a side fails, `control` cancels, or a timeout fires.
    ///
    /// `tap` sees every chunk read, before it is buffered.
    public func run(
        downstream: any ByteStream, upstream: any ByteStream, control: RelayControl? = nil,
        tap: (any RelayTap)? = nil
    ) -> RelayReport {
        let loop = RelayLoop(
            downstream: downstream, upstream: upstream, configuration: configuration, control: control, tap: tap)
        return loop.run()
    }
}

/// Why a relay loop stopped.
private enum RelayStop {
    /// Both directions ended cleanly.
    case completed
    /// One side failed; the other is aborted.
    case failed(RelayFailure)
    /// The relay stopped both sides for this reason (`.failed` only when `poll()` itself failed).
    case stopped(RelayEnding)
}

/// The state of one `Relay.run`: two pipes, the poll set, the clocks.
private final class RelayLoop {
    let downstream: any ByteStream
    let upstream: any ByteStream
    let pipes: [RelayPipe]
    let configuration: RelayConfiguration
    let control: RelayControl?
    let tap: (any RelayTap)?
    let clock = ContinuousClock()

    init(
        downstream: any ByteStream, upstream: any ByteStream, configuration: RelayConfiguration,
        control: RelayControl?, tap: (any RelayTap)?
    ) {
        self.downstream = downstream
        self.upstream = upstream
        self.configuration = configuration
        self.control = control
        self.tap = tap
        self.pipes = [
            RelayPipe(
                direction: .toUpstream, source: downstream, destination: upstream, capacity: configuration.bufferSize),
            RelayPipe(
                direction: .toDownstream, source: upstream, destination: downstream,
                capacity: configuration.bufferSize),
        ]
    }

    func run() -> RelayReport {
        let started = clock.now
        let endings: (downstream: RelayEnding, upstream: RelayEnding)
        switch relay(started: started) {
        case .completed:
            endings = (.endOfStream, .endOfStream)
            downstream.close()
            upstream.close()
        case .failed(let failure):
            endings = failure.side == .downstream ? (failure.ending, .aborted) : (.aborted, failure.ending)
            downstream.abort()
            upstream.abort()
        case .stopped(.failed(let detail)):
            endings = (.failed(detail), .failed(detail))
            downstream.abort()
            upstream.abort()
        case .stopped(let ending):
            endings = (ending, ending)
            downstream.close()
            upstream.close()
        }
        return RelayReport(
            toUpstream: pipes[0].report, toDownstream: pipes[1].report, downstream: endings.downstream,
            upstream: endings.upstream, duration: clock.now - started)
    }

    private func stream(_ side: RelaySide) -> any ByteStream {
        side == .downstream ? downstream : upstream
    }

    /// The loop: pump both pipes, check the stop conditions, poll (without waiting when something moved).
    private func relay(started: ContinuousClock.Instant) -> RelayStop {
        for side in RelaySide.allCases {
            do {
                try Socket.setNonBlocking(stream(side).fileDescriptor, true)
            } catch {
                return .failed(RelayFailure(side: side, error: error))
            }
        }
        let hardDeadline = configuration.timeLimit.map { started + $0 }
        var lastActivity = started
        while true {
            var progressed = false
            do {
                for pipe in pipes { progressed = try pipe.pump(tap: tap) || progressed }
            } catch {
                return .failed(error)
            }
            if pipes.allSatisfy(\.isFinished) { return .completed }
            if control?.isCancelled == true { return .stopped(.cancelled) }
            let now = clock.now
            if progressed { lastActivity = now }
            let idleDeadline = configuration.idleTimeout.map { lastActivity + $0 }
            if let hardDeadline, now >= hardDeadline { return .stopped(.timeLimit) }
            if let idleDeadline, now >= idleDeadline { return .stopped(.idleTimeout) }
            let wakeAt = [idleDeadline, hardDeadline].compactMap { $0 }.min()
            do {
                try waitForReadiness(timeout: progressed ? 0 : Poller.timeout(until: wakeAt))
            } catch {
                return .stopped(.failed(String(describing: error)))
            }
        }
    }

    /// Polls both descriptors for what their blocked operations want, plus the control's wake-up, and
    /// clears the waits that the returned readiness satisfies.
    private func waitForReadiness(timeout: Int32) throws {
        var entries = RelaySide.allCases.map { side in
            let events = Poller.events(for: interest(of: side))
            return pollfd(fd: events == 0 ? -1 : stream(side).fileDescriptor, events: events, revents: 0)
        }
        if let control { entries.append(pollfd(fd: control.wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
        guard try Poller.poll(&entries, timeout: timeout) > 0 else { return }
        for (index, side) in RelaySide.allCases.enumerated() where entries[index].revents != 0 {
            let revents = entries[index].revents
            for pipe in pipes {
                if pipe.direction.source == side, let wait = pipe.readWait, Poller.isReady(revents, for: wait) {
                    pipe.readWait = nil
                }
                if pipe.direction.destination == side, let wait = pipe.writeWait, Poller.isReady(revents, for: wait) {
                    pipe.writeWait = nil
                }
            }
        }
        if let control, entries[2].revents != 0 { control.drainWakeUps() }
    }

    /// What the blocked operations on `side` wait for; empty when none waits (the descriptor is left out, so
    /// a hang-up on a finished side cannot spin the loop).
    private func interest(of side: RelaySide) -> IOInterest {
        var interest: IOInterest = []
        for pipe in pipes {
            if pipe.direction.source == side, pipe.wantsRead, let wait = pipe.readWait { interest.formUnion(wait) }
            if pipe.direction.destination == side, pipe.wantsWrite, let wait = pipe.writeWait {
                interest.formUnion(wait)
            }
        }
        return interest
    }
}
