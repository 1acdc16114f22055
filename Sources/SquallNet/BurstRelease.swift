import CSystem

/// When a listener gives memory back after a burst of connections: glibc keeps what a thousand connection threads
/// freed in its arenas, scattered, so a proxy or server that once held 2,000 connections kept some 160 MiB more
/// after each such burst (issue 37). Once the connections in use fall to a quarter of the most held since the last
/// release, and that most was a burst (`burst` or more), the free memory of every arena is released
/// (`malloc_trim(0)`, a few milliseconds); steady traffic below `burst` never pays for it.
///
/// Pure: the accept loop feeds it the counts and calls `releaseFreeMemory()` when it says so.
public struct BurstRelease: Sendable, Hashable {
    /// The fewest connections held at once that count as a burst. Default 64.
    public let burst: Int
    /// The most connections held at once since the last release.
    public private(set) var highWater = 0

    public init(burst: Int = 64) {
        precondition(burst > 0, "a burst is at least one connection")
        self.burst = burst
    }

    /// A connection started: `active` are held now.
    public mutating func opened(active: Int) {
        highWater = max(highWater, active)
    }

    /// A connection ended, `active` are held now: whether to release the free memory now.
    public mutating func closed(active: Int) -> Bool {
        guard highWater >= burst, active <= highWater / 4 else { return false }
        highWater = active
        return true
    }

    /// Gives the free memory of every malloc arena back to the system.
    public static func releaseFreeMemory() {
        _ = squall_release_free_memory()
    }
}
