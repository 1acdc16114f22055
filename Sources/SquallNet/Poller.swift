import CSystem
import Glibc

/// `poll(2)` with deadlines on the `ContinuousClock`, shared by the connector and the blocking conveniences.
enum Poller {
    /// The `poll` events that match an interest.
    static func events(for interest: IOInterest) -> Int16 {
        var events: Int16 = 0
        if interest.contains(.read) { events |= Int16(POLLIN) }
        if interest.contains(.write) { events |= Int16(POLLOUT) }
        return events
    }

    /// Whether `revents` lets an operation waiting for `interest` try again (errors and hang-ups always do,
    /// so the operation itself reports them).
    static func isReady(_ revents: Int16, for interest: IOInterest) -> Bool {
        if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        return revents & events(for: interest) != 0
    }

    /// The `poll` timeout in milliseconds until `deadline`: -1 (forever) for nil, 0 once it has passed.
    static func timeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = deadline - .now
        return remaining <= .zero ? 0 : Int32(clamping: remaining.milliseconds)
    }

    /// Polls once; an interrupted call (EINTR) counts as nothing ready, as callers loop on their deadline.
    static func poll(_ entries: inout [pollfd], timeout milliseconds: Int32) throws -> Int32 {
        let ready = Glibc.poll(&entries, nfds_t(entries.count), milliseconds)
        if ready >= 0 { return ready }
        guard errno == EINTR else { throw NetError.system(.poll, "poll") }
        return 0
    }

    /// Waits until `fd` is ready for `interest` (or has an error); false when `deadline` passed first.
    static func wait(_ fd: Int32, for interest: IOInterest, until deadline: ContinuousClock.Instant?) throws -> Bool {
        var entries = [pollfd(fd: fd, events: events(for: interest), revents: 0)]
        while true {
            let milliseconds = timeout(until: deadline)
            if try poll(&entries, timeout: milliseconds) > 0 { return true }
            if milliseconds == 0 { return false }
        }
    }
}
