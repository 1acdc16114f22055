import CSystem
import Glibc

/// An eventfd that wakes a thread's poll loop from other threads: `signal` makes `fileDescriptor` readable until the
/// loop's thread calls `drain`, so a signal sent after the loop's last `poll` is never lost (level-triggered).
public final class WakeSignal: Sendable {
    /// The descriptor to poll for `POLLIN`.
    public let fileDescriptor: Int32

    public init() throws(NetError) {
        fileDescriptor = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        if fileDescriptor < 0 { throw NetError.system(.socket, "eventfd") }
    }

    deinit {
        Glibc.close(fileDescriptor)
    }

    /// Wakes the loop (any thread).
    public func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(fileDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Clears the signals sent so far (the loop's thread, before it looks at what they were about).
    public func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(fileDescriptor, &count, MemoryLayout<UInt64>.size)
    }

    /// Waits until `descriptor` is ready for `interest`, this signal is sent, or `deadline`; clears the signal when it
    /// was sent.
    public func wait(for interest: IOInterest, on descriptor: Int32, until deadline: ContinuousClock.Instant?) throws {
        try wait(for: [(descriptor, interest)], until: deadline)
    }

    /// Waits until one of `descriptors` is ready for its interest, this signal is sent, or `deadline` (nil: no
    /// deadline); clears the signal when it was sent.
    public func wait(
        for descriptors: [(descriptor: Int32, interest: IOInterest)], until deadline: ContinuousClock.Instant?
    ) throws {
        var entries = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)]
        for (descriptor, interest) in descriptors {
            entries.append(pollfd(fd: descriptor, events: Poller.events(for: interest), revents: 0))
        }
        _ = try Poller.poll(&entries, timeout: Poller.timeout(until: deadline))
        if entries[0].revents != 0 { drain() }
    }
}
