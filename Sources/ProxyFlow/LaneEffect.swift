import FaultEngine

/// An ongoing shaping effect on one lane, started by a fired rule and ended by its window, by the rule's
/// removal, or (for `limit` and a closing stall) by the connection's end.
struct LaneEffect: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Each chunk waits `delay` plus a uniform draw in −jitter…+jitter (never below zero).
        case latency(Duration, jitter: Duration)
        /// Bytes leave at most `bytesPerSecond`.
        case bandwidth(bytesPerSecond: Int64)
        /// Chunks are cut into pieces of size ± variation with `delay` between them.
        case slice(size: Int64, variation: Int64, delay: Duration)
        /// Nothing leaves until `until` (nil: forever); with `thenClose`, bytes are dropped and the connection
        /// closes at `until`.
        case stall(until: Duration?, thenClose: Bool)
        /// `remaining` more bytes go, then the connection closes.
        case limit(remaining: Int64)
        /// The end of stream waits `delay`.
        case slowClose(Duration)
    }

    /// The rule that started it; a later firing of the same rule replaces it.
    var rule: String
    var kind: Kind
    /// When it stops (a window's end); nil: while the connection lives.
    var expires: Duration?
    /// For a stall: the lane's first entry it holds (entries queued before it started still leave), so that a
    /// stall fired at an offset lets the bytes before the offset through.
    var holdsFrom = 0

    func isLive(at now: Duration) -> Bool {
        expires.map { now < $0 } ?? true
    }

}

extension LaneEffect {
    /// The effect a shaping action starts on a lane at `now` (`FaultWire.shape`).
    init(_ shape: LaneShape, rule: String, at now: Duration, expires: Duration?) {
        let kind: Kind
        switch shape {
        case .latency(let delay, let jitter): kind = .latency(delay, jitter: jitter)
        case .bandwidth(let rate): kind = .bandwidth(bytesPerSecond: rate)
        case .slice(let size, let variation, let delay): kind = .slice(size: size, variation: variation, delay: delay)
        case .stall(let duration, let thenClose): kind = .stall(until: duration.map { now + $0 }, thenClose: thenClose)
        case .limit(let bytes): kind = .limit(remaining: bytes)
        case .slowClose(let delay): kind = .slowClose(delay)
        }
        self.init(rule: rule, kind: kind, expires: expires)
    }
}
