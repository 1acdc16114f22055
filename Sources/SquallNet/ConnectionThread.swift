import Dispatch
import Foundation

/// A dedicated OS thread for one connection (Squall's rule: one thread per connection, never a blocking call
/// in Swift's cooperative pool), with a small stack and a way to wait for its end.
public final class ConnectionThread: Sendable {
    /// The stack size connection threads get unless told otherwise: 256 KiB (buffers live on the heap).
    public static let defaultStackSize = 256 * 1024

    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`.
    @discardableResult
    public init(
        name: String, stackSize: Int = ConnectionThread.defaultStackSize, _ body: @escaping @Sendable () -> Void
    ) {
        let finished = self.finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Waits until the body has returned.
    public func join() {
        finished.wait()
        finished.signal()
    }

    /// Waits at most `timeout` for the body to return; true when it did.
    public func join(timeout: Duration) -> Bool {
        guard finished.wait(timeout: .now() + .nanoseconds(Int(clamping: timeout.nanoseconds))) == .success else {
            return false
        }
        finished.signal()
        return true
    }
}

extension Duration {
    /// The whole nanoseconds in this duration (rounded down), for Dispatch timeouts.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
