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

    /// What a release gives back: a 128 MiB heap freed in 4 KiB pieces (below the mmap threshold, so glibc keeps it)
    /// is out of the process's resident memory afterwards.
    @Test func releasingFreeMemoryGivesTheFreedHeapBack() throws {
        func resident() throws -> Int {
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
        }
        var pieces: [UnsafeMutableRawPointer] = []
        for _ in 0..<32_768 {
            let piece = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
            piece.initializeMemory(as: UInt8.self, repeating: 1, count: 4096)
            pieces.append(piece)
        }
        // Keep every 64th piece, so the free chunks sit between live ones and plain frees cannot shrink the heap.
        for (index, piece) in pieces.enumerated() where index % 64 != 0 { piece.deallocate() }
        let before = try resident()
        BurstRelease.releaseFreeMemory()
        let after = try resident()
        for (index, piece) in pieces.enumerated() where index % 64 == 0 { piece.deallocate() }
        #expect(before - after > 64 << 20, "released \((before - after) >> 20) MiB")
    }
}
