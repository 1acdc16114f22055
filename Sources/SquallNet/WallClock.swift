import Glibc

/// The wall clock (`CLOCK_REALTIME`), for dating what a monotonic clock measured: a transcript's start, a file's
/// creation. Intervals are measured with `ContinuousClock`, never with this.
public enum WallClock {
    /// The time since 1970-01-01T00:00:00Z, now, to the nanosecond.
    public static func sinceEpoch() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    /// Microseconds since 1970-01-01T00:00:00Z, now (truncated).
    public static func unixMicroseconds() -> Int64 {
        let (seconds, attoseconds) = sinceEpoch().components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
