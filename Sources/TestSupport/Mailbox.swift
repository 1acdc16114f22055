import Dispatch
import Synchronization

/// Hands values from server threads to a test, which waits for each with a timeout.
public final class Mailbox<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Posts a value; any thread.
    public func put(_ value: Value) {
        values.withLock { $0.append(value) }
        arrived.signal()
    }

    /// The oldest value, waiting at most `timeout` for one; nil when none came.
    public func take(timeout: Duration = .seconds(20)) -> Value? {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard arrived.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
        return values.withLock { $0.removeFirst() }
    }
}
