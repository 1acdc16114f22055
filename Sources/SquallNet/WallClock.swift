import Glibc

/// The wall clock (`CLOCK_REALTIME`), for dating what a monotonic clock measured: a transcript's start, a file's
/// creation. Intervals are measured with `ContinuousClock`, never with this.
public enum WallClock {
    /// Microseconds since 1970-01-01T00:00:00Z, now.
    public static func unixMicroseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
