import Glibc
import HTTPWire
import ResumableUpload
import SquallNet
import Synchronization
import TLSKit

/// Uploads one file to a creation URL, resuming by itself after interruptions when the server announced the
/// upload with a 104: the socket driver around `TransferStateMachine`.
///
/// ```
///  run() ─▶ OPTIONS preflight (cached per URL and version; none with a resume location) ─▶ machine.handle(.start)
///        ─▶ loop: report → observer · send → HTTPClientConnection.exchange (104s, bytes sent, final response
///           fed back) · backoff → sleeper · finish → outcome
/// ```
/// `run()` blocks its thread (never call it on Swift's cooperative pool); `cancel()` may come from any thread:
/// it shuts the connection down, and the transfer then asks the server (HEAD) for the upload's state.
///
/// The process must ignore SIGPIPE (`ProcessSetup.ignoreBrokenPipe()`, as every Squall binary does first):
/// OpenSSL writes with write(2), which a closed peer turns into that signal.
public final class UploadTransfer: Sendable {
    /// Waits for a backoff delay; tests inject one that records the delays and returns at once.
    public typealias Sleeper = @Sendable (Duration) -> Void

    public let path: String
    public let url: HTTPURL
    public let configuration: TransferConfiguration
    let preflightCache: PreflightCache
    /// The HTTP/2 connections shared with other transfers (`configuration.http`).
    let connections: HTTP2Connections
    /// Whether `connections` is this transfer's own, closed when it ends.
    private let ownsConnections: Bool
    let sleeper: Sleeper
    let observer: @Sendable (TransferEvent) -> Void
    private let control = Mutex(Control())

    struct Control {
        /// `abort()`: cancelled, and nothing more is sent (no HEAD to learn the server's state).
        var aborted = false
        var cancelRequested = false
        var cancelDelivered = false
        /// Cuts the request in flight: shuts its socket down, or resets its HTTP/2 stream.
        var interrupt: (@Sendable () -> Void)?
    }

    /// A transfer of the file at `path` to the creation URL `url`; `observer` gets every event, in order, on the
    /// thread that calls `run()`. Its HTTP/2 connections are `connections`' (shared with other transfers), or its
    /// own.
    public init(
        file path: String, to url: String, configuration: TransferConfiguration = TransferConfiguration(),
        preflightCache: PreflightCache = PreflightCache(), connections: HTTP2Connections? = nil,
        sleeper: @escaping Sleeper = UploadTransfer.sleep,
        observer: @escaping @Sendable (TransferEvent) -> Void = { _ in }
    ) throws(TransferError) {
        self.path = path
        self.url = try HTTPURL(url)
        self.configuration = configuration
        self.preflightCache = preflightCache
        self.connections = connections ?? HTTP2Connections()
        self.ownsConnections = connections == nil
        self.sleeper = sleeper
        self.observer = observer
    }

    /// Cancels the transfer (any thread): the request in flight is cut; `run()` then reports `cancelled`, with the
    /// server's state when there is an upload resource to ask about.
    public func cancel() {
        control.withLock { control in
            guard !control.cancelRequested else { return }
            control.cancelRequested = true
            control.interrupt?()
        }
    }

    /// Cancels the transfer without asking the server anything afterwards (its owner is stopping): the request
    /// in flight is cut and `run()` returns `cancelled` before sending another.
    public func abort() {
        control.withLock { control in
            control.aborted = true
            control.cancelRequested = true
            control.interrupt?()
        }
    }

    private var isAborted: Bool {
        control.withLock { $0.aborted }
    }

    /// Runs the transfer to its end.
    public func run() -> TransferOutcome {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return TransferOutcome(
                result: .failed(TransferError(.fileUnreadable, "cannot open \(path): errno \(errno)")))
        }
        defer { Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return TransferOutcome(result: .failed(TransferError(.fileUnreadable, "cannot stat \(path)")))
        }
        var session = TransferSession(transfer: self, fileDescriptor: descriptor)
        defer {
            session.close()
            if ownsConnections { connections.close() }
        }
        let preflight =
            configuration.resumeLocation == nil
            ? configuration.interopVersion.map { session.preflight(version: $0) } : nil
        if let preflight { observer(.preflight(preflight)) }
        var machine = TransferStateMachine(
            url: url, total: Int64(status.st_size), configuration: configuration, preflight: preflight)
        var pending = machine.handle(.start)
        while !pending.isEmpty {
            switch pending.removeFirst() {
            case .report(let event):
                observer(event)
            case .send(let request):
                if isAborted { return TransferOutcome(result: .cancelled) }
                pending += session.perform(request, machine: &machine)
            case .backoff(let delay):
                if isAborted { return TransferOutcome(result: .cancelled) }
                sleeper(delay)
                pending += machine.handle(takeCancellation() ? .cancelled : .backoffElapsed)
            case .finish(let outcome):
                return outcome
            }
        }
        return TransferOutcome(result: .failed(TransferError(.badServerResponse, "the transfer stopped undecided")))
    }

    /// True once per cancellation: the first time it is asked after `cancel()`.
    func takeCancellation() -> Bool {
        control.withLock { control in
            guard control.cancelRequested && !control.cancelDelivered else { return false }
            control.cancelDelivered = true
            return true
        }
    }

    /// Remembers the socket of a new connection, shutting it down at once when a cancellation is pending.
    func register(_ socket: Socket) {
        register(interrupt: { socket.shutdown(reading: true, writing: true) })
    }

    /// Remembers what cuts the request in flight (nil: nothing of this transfer's own to cut), calling it at once
    /// when a cancellation is pending.
    func register(interrupt: (@Sendable () -> Void)?) {
        control.withLock { control in
            control.interrupt = interrupt
            if control.aborted || control.cancelRequested && !control.cancelDelivered { interrupt?() }
        }
    }

    /// Sleeps for `duration` (the default sleeper).
    public static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
