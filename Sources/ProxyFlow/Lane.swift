import FaultEngine
import SquallCore

/// One direction of a proxied connection: the bytes read from `source` waiting to be written to the other side,
/// each with the time it may leave, and the shaping effects that set those times. Pure: times are passed in.
///
/// ```
///  push(bytes, now) ──▶ [limit cut] ──▶ [slice pieces] ──▶ [latency, bandwidth release times] ──▶ queue
///  next(now) ◀── head of the queue if its release time has come and no stall holds it
/// ```
/// Release times never go backwards, so the bytes keep their order. A stall holds whatever is queued and
/// whatever arrives; a closing stall (Toxiproxy's `timeout`) drops bytes and then closes. `queuedBytes` is the
/// driver's backpressure signal: it stops reading the source above its buffer size.
public struct Lane: Sendable {
    /// Where the lane's bytes come from.
    public let source: FlowSide
    private var entries: [Entry] = []
    private var head = 0
    /// Bytes waiting in the lane.
    public private(set) var queuedBytes = 0
    /// Bytes ever queued, and bytes ever written (`consume`): a byte queued when `queuedTotal` was N has been
    /// written once `writtenTotal` passes N.
    public private(set) var queuedTotal: Int64 = 0
    public private(set) var writtenTotal: Int64 = 0
    /// Bytes a fault dropped (a closing stall, a limit).
    public private(set) var droppedBytes: Int64 = 0
    /// Set once a close, reset or limit is queued: later input is dropped.
    public private(set) var isCut = false
    private var lastRelease: Duration = .zero
    private var bandwidthNext: Duration = .zero
    private(set) var effects: [LaneEffect] = []
    private var generator: SeededGenerator

    private struct Entry: Sendable {
        var item: FlowItem
        var release: Duration
        /// Counts the entries ever appended to the lane.
        var sequence: Int
        /// A piece a slice or bandwidth effect cut: it leaves in a write of its own.
        var shaped = false
    }

    /// The sequence number the next appended entry gets.
    private var nextSequence = 0

    /// The largest piece a bandwidth limit releases at once, so that pacing stays smooth.
    static let bandwidthQuantum: Int64 = 16 * 1024

    public init(source: FlowSide, seed: UInt64) {
        self.source = source
        self.generator = SeededGenerator(seed: seed)
    }

    /// Whether nothing waits in the lane.
    public var isEmpty: Bool { head == entries.count }

    /// The item at the head of the lane, due or not, held or not.
    var headItem: FlowItem? { head < entries.count ? entries[head].item : nil }

    /// How many entries were ever appended: a position in the lane's history, compared with `carriedOut`.
    var appended: Int { nextSequence }

    /// How many entries were carried out (written, or dropped by a closing stall): every entry before this
    /// position has left the lane.
    var carriedOut: Int { head < entries.count ? entries[head].sequence : nextSequence }

    /// The rules with an effect on the lane now.
    public var activeRules: [String] { effects.map(\.rule) }

    /// Starts an effect, replacing one the same rule started before.
    mutating func add(_ effect: LaneEffect, at now: Duration) {
        var effect = effect
        effect.holdsFrom = nextSequence
        effects.removeAll { $0.rule == effect.rule }
        effects.append(effect)
        if case .bandwidth = effect.kind { bandwidthNext = max(bandwidthNext, now) }
    }

    /// Holds everything still queued and everything that comes, for good (a cut about to be carried out): unlike a
    /// stall, whose effect starts after the entries already queued.
    mutating func holdEverything(rule: String) {
        effects.removeAll { $0.rule == rule }
        var effect = LaneEffect(rule: rule, kind: .stall(until: nil, thenClose: false), expires: nil)
        effect.holdsFrom = carriedOut
        effects.append(effect)
    }

    /// Ends the effects of rules not in `names` (rules removed while the connection lives).
    mutating func keepEffects(of names: Set<String>) {
        effects.removeAll { !names.contains($0.rule) }
    }

    /// Queues bytes read from the source at `now`.
    public mutating func push(_ bytes: ArraySlice<UInt8>, at now: Duration) {
        guard !bytes.isEmpty else { return }
        pruneExpired(now)
        guard !isCut, closingStall() == nil else {
            droppedBytes += Int64(bytes.count)
            return
        }
        var bytes = bytes
        var closeAfter = false
        if let index = effects.firstIndex(where: { if case .limit = $0.kind { true } else { false } }),
            case .limit(let remaining) = effects[index].kind
        {
            let kept = Int(min(Int64(bytes.count), remaining))
            droppedBytes += Int64(bytes.count - kept)
            bytes = bytes.prefix(kept)
            effects[index].kind = .limit(remaining: remaining - Int64(kept))
            closeAfter = remaining - Int64(kept) == 0
        }
        schedule(bytes, at: now)
        if closeAfter { pushMarker(.close, at: now) }
    }

    /// Queues a marker after everything queued: the end of the source's stream (delayed by a slow close), or a
    /// close or reset of the connection.
    public mutating func pushMarker(_ item: FlowItem, at now: Duration) {
        guard !isCut else { return }
        pruneExpired(now)
        var release = max(now, lastRelease)
        if item == .endStream {
            for effect in effects {
                if case .slowClose(let delay) = effect.kind { release = max(release, now + delay) }
            }
        } else if item == .close || item == .reset {
            isCut = true
        }
        append(item, release: release)
    }

    /// Drops whatever the source sends from now on (the proxy answered for the server and closes after it).
    mutating func stopInput() {
        isCut = true
    }

    /// The next item to carry out at `now`, left in the lane until `consume` or `pop`; nil when nothing is due.
    public mutating func next(at now: Duration) -> FlowItem? {
        pruneExpired(now)
        if let closing = closingStall(), now >= closing.until {
            effects.removeAll { if case .stall(_, true) = $0.kind { true } else { false } }
            let kept = entries[head...].filter { $0.sequence < closing.from }
            droppedBytes += Int64(queuedBytes - kept.reduce(0) { $0 + Self.size($1.item) })
            entries = Array(kept)
            head = 0
            queuedBytes = kept.reduce(0) { $0 + Self.size($1.item) }
            pushMarker(.close, at: now)
        }
        guard head < entries.count, entries[head].release <= now, !isHeld(entries[head].sequence, now) else {
            return nil
        }
        return entries[head].item
    }

    /// The due byte items from the head on, for one write: the head item `next(at:)` gives, then each following
    /// byte item that is due and not held while the run stays within `limit` bytes. A marker (end of stream, close,
    /// reset) ends the run, and so does a piece a slice or bandwidth effect cut (it is written alone), so faults
    /// keep their place on the wire; `consume` takes the written count across the run. Empty when the head is not
    /// a due byte item.
    public mutating func nextBytes(at now: Duration, limit: Int) -> [ArraySlice<UInt8>] {
        guard case .bytes(let first) = next(at: now) else { return [] }
        var run = [first]
        guard !entries[head].shaped else { return run }
        var total = first.count
        var index = head + 1
        let closingFrom = closingStall()?.from ?? .max
        while index < entries.count, case .bytes(let bytes) = entries[index].item, total + bytes.count <= limit {
            let entry = entries[index]
            guard !entry.shaped, entry.release <= now, entry.sequence < closingFrom, !isHeld(entry.sequence, now)
            else { break }
            run.append(bytes)
            total += bytes.count
            index += 1
        }
        return run
    }

    /// Records that `count` bytes were written: the head item's, and, past its end, the following byte items'
    /// (a run `nextBytes` gave).
    public mutating func consume(_ count: Int) {
        var count = count
        while count > 0, head < entries.count, case .bytes(let bytes) = entries[head].item {
            writtenTotal += Int64(min(count, bytes.count))
            if count >= bytes.count {
                queuedBytes -= bytes.count
                count -= bytes.count
                advance()
            } else {
                queuedBytes -= count
                entries[head].item = .bytes(bytes.dropFirst(count))
                count = 0
            }
        }
    }

    /// Removes the head item (a marker that was carried out).
    public mutating func pop() {
        if case .bytes(let bytes) = entries[head].item { queuedBytes -= bytes.count }
        advance()
    }

    /// The earliest time after `now` at which `next` may give something: nil when the lane is empty, or held
    /// forever.
    public func nextRelease(after now: Duration) -> Duration? {
        if let closing = closingStall(), head == entries.count || entries[head].sequence >= closing.from {
            return closing.until
        }
        guard head < entries.count else { return nil }
        var release = entries[head].release
        for effect in effects where effect.isLive(at: now) && entries[head].sequence >= effect.holdsFrom {
            guard case .stall(let until, _) = effect.kind else { continue }
            guard let until else { return effect.expires.map { max($0, release) } }
            release = max(release, until)
        }
        return release
    }

    private mutating func advance() {
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.count < 1024)
            head = 0
        } else if head >= 256, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    private static func size(_ item: FlowItem) -> Int {
        if case .bytes(let bytes) = item { bytes.count } else { 0 }
    }

    private mutating func append(_ item: FlowItem, release: Duration, shaped: Bool = false) {
        entries.append(Entry(item: item, release: release, sequence: nextSequence, shaped: shaped))
        nextSequence += 1
        lastRelease = release
        if case .bytes(let bytes) = item {
            queuedBytes += bytes.count
            queuedTotal += Int64(bytes.count)
        }
    }

    /// Sets release times: latency on the whole chunk, slice delays between pieces, bandwidth pacing.
    private mutating func schedule(_ bytes: ArraySlice<UInt8>, at now: Duration) {
        var time = max(now, lastRelease)
        var rate: Int64?
        var slicing: (size: Int64, variation: Int64, delay: Duration)?
        for effect in effects {
            switch effect.kind {
            case .latency(let delay, let jitter): time = max(time, now + delay + draw(jitter))
            case .bandwidth(let bytesPerSecond): rate = min(rate ?? bytesPerSecond, bytesPerSecond)
            case .slice(let size, let variation, let delay): slicing = (size, variation, delay)
            default: break
            }
        }
        var rest = bytes
        var first = true
        while !rest.isEmpty {
            var size = rest.count
            if let slicing {
                let variation =
                    slicing.variation > 0
                    ? Int64.random(in: -slicing.variation...slicing.variation, using: &generator) : 0
                size = Int(min(Int64(rest.count), max(1, slicing.size + variation)))
                if !first { time += slicing.delay }
            }
            if let rate {
                size = min(size, Int(max(1, min(Self.bandwidthQuantum, rate / 100))))
                time = max(time, bandwidthNext)
                bandwidthNext = time + .nanoseconds(Int64(size) * 1_000_000_000 / rate)
            }
            append(.bytes(rest.prefix(size)), release: time, shaped: rate != nil || slicing != nil)
            rest = rest.dropFirst(size)
            first = false
        }
    }

    private mutating func draw(_ jitter: Duration) -> Duration {
        guard jitter > .zero else { return .zero }
        let bound = Int64(jitter / .nanoseconds(1))
        return .nanoseconds(Int64.random(in: -bound...bound, using: &generator))
    }

    private mutating func pruneExpired(_ now: Duration) {
        effects.removeAll { effect in
            if !effect.isLive(at: now) { return true }
            if case .stall(let until?, false) = effect.kind { return now >= until }
            return false
        }
    }

    /// Whether a stall holds the entry numbered `sequence` at `now`.
    private func isHeld(_ sequence: Int, _ now: Duration) -> Bool {
        effects.contains { effect in
            guard case .stall(let until, false) = effect.kind, sequence >= effect.holdsFrom else { return false }
            return until.map { now < $0 } ?? true
        }
    }

    /// The closing stall's end and first held entry.
    private func closingStall() -> (until: Duration, from: Int)? {
        for effect in effects {
            if case .stall(let until?, true) = effect.kind { return (until, effect.holdsFrom) }
        }
        return nil
    }
}
