import SquallNet
import Testing

/// When an accept loop gives freed memory back (issue 37): after a burst has drained to a quarter, never in steady
/// traffic below a burst.
struct BurstReleaseTests {
    /// Opens `count` connections, then closes them all; the `active` counts at which a release was asked for.
    private static func burst(_ count: Int, from base: Int = 0, into release: inout BurstRelease) -> [Int] {
        for active in (base + 1)...(base + count) { release.opened(active: active) }
        return stride(from: base + count - 1, through: base, by: -1).filter { release.closed(active: $0) }
    }

    @Test func aBurstOf2000IsReleasedAsItDrains() {
        var release = BurstRelease()
        #expect(Self.burst(2000, into: &release) == [500, 125, 31])
        #expect(release.highWater == 31)
        // The next burst is released again: nothing accumulates across bursts.
        #expect(Self.burst(2000, into: &release) == [500, 125, 31])
    }

    /// Steady traffic (the soak's 20 workers, connections coming and going) never pays for a release.
    @Test func steadyTrafficBelowABurstIsNeverReleased() {
        var release = BurstRelease()
        var asked = 0
        for round in 0..<10_000 {
            let active = 10 + round % 30
            release.opened(active: active)
            if release.closed(active: active - 1) { asked += 1 }
        }
        #expect(asked == 0)
        // Negative control: the same churn with a burst threshold below it asks again and again.
        var eager = BurstRelease(burst: 8)
        var eagerAsked = 0
        for round in 0..<1_000 {
            eager.opened(active: 10 + round % 30)
            if eager.closed(active: 2) { eagerAsked += 1 }
        }
        #expect(eagerAsked > 100)
    }

    @Test func aBurstOnTopOfSteadyTrafficIsReleasedOnceItFallsBack() {
        var release = BurstRelease()
        #expect(Self.burst(20, into: &release).isEmpty)
        #expect(Self.burst(400, from: 20, into: &release) == [105, 26])
    }

    @Test func releasingFreeMemoryIsSafeAtAnyTime() {
        BurstRelease.releaseFreeMemory()
        BurstRelease.releaseFreeMemory()
    }
}
