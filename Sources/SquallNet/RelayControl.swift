import CSystem
import Glibc
import Synchronization

/// Steers a running `Relay` from other threads: `cancel()` ends it at once.
///
/// The control owns an eventfd that sits in the relay's poll set, so a request wakes a relay that is
/// blocked in `poll()`; a relay busy moving bytes sees it before its next poll. One control per relay.
public final class RelayControl: Sendable {
    /// The eventfd the relay polls for readability.
    let wakeDescriptor: Int32
    private let cancelRequested = Atomic<Bool>(false)

    public init() throws {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard fd >= 0 else { throw NetError.system(.socket, "eventfd") }
        self.wakeDescriptor = fd
    }

    deinit {
        Glibc.close(wakeDescriptor)
    }

    /// Asks the relay to stop; it closes both streams and reports `RelayEnding.cancelled`. Any thread.
    public func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        wake()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool {
        cancelRequested.load(ordering: .acquiring)
    }

    /// Makes the wake descriptor readable.
    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Consumes pending wake-ups, so the descriptor stops being readable.
    func drainWakeUps() {
        var count: UInt64 = 0
        _ = Glibc.read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
    }
}
