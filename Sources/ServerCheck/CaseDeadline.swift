import Dispatch
import Glibc
import SquallNet
import Synchronization

/// The time one case may take. Every wait of the case is bounded by `remaining`; when the time is up the case's
/// open sockets are shut down, so that a read or write blocked on a hanging server returns at once and the case
/// fails rather than hangs (a server that trickles a byte a second never outlasts it either).
final class CaseDeadline: Sendable {
    let timeout: Duration
    let instant: ContinuousClock.Instant
    /// The sockets of the case's connections; nil once the time is up or the case ended.
    private let sockets = Mutex<[Socket]?>([])
    private let passed = Atomic<Bool>(false)

    /// Starts the clock: `timeout` from now.
    init(timeout: Duration) {
        self.timeout = timeout
        self.instant = .now + timeout
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.expire()
        }
    }

    /// What is left of the case's time (zero once it is up, or cut short).
    var remaining: Duration {
        passed.load(ordering: .acquiring) ? .zero : max(.zero, instant - .now)
    }

    /// Whether the time ran out.
    var hasPassed: Bool {
        passed.load(ordering: .acquiring) || remaining == .zero
    }

    /// Shuts `socket` down when the time runs out (at once if it already has).
    func watch(_ socket: Socket) {
        let watching = sockets.withLock { sockets in
            sockets?.append(socket)
            return sockets != nil
        }
        if !watching { socket.shutdown(reading: true, writing: true) }
    }

    /// Waits `gap`, or what is left of the case's time when that is less.
    func pause(_ gap: Duration) {
        let wait = min(gap, remaining)
        guard wait > .zero else { return }
        let (seconds, attoseconds) = wait.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }

    /// The case is over: its sockets are the connections' own again.
    func end() {
        sockets.withLock { $0 = nil }
    }

    /// Ends the case's time now (the check is stopped): its sockets are shut down and every wait returns.
    func cutShort() {
        expire()
    }

    private func expire() {
        passed.store(true, ordering: .releasing)
        for socket in sockets.withLock({ $0.take() ?? [] }) {
            socket.shutdown(reading: true, writing: true)
        }
    }
}
