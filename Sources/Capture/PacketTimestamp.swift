import Glibc
import SquallNet

/// When a captured packet happened: whole microseconds since the Unix epoch, the resolution of a pcap record.
///
/// Kept as an integer so that a record's `ts` is exact (a `Double` turns .001 into .000999).
public struct PacketTimestamp: Sendable, Hashable, Comparable {
    public var microsecondsSinceEpoch: Int64

    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    /// The wall clock now (`clock_gettime(CLOCK_REALTIME)`), as a capture shows it.
    public static func now() -> PacketTimestamp {
        PacketTimestamp(microsecondsSinceEpoch: WallClock.unixMicroseconds())
    }

    /// The pcap record's `ts`: seconds and microseconds (a pcap record cannot show a time before the epoch, so
    /// one is written as the epoch).
    var timeValue: timeval {
        let (seconds, micros) = max(0, microsecondsSinceEpoch).quotientAndRemainder(dividingBy: 1_000_000)
        return timeval(tv_sec: Int(seconds), tv_usec: Int(micros))
    }

    public static func < (left: PacketTimestamp, right: PacketTimestamp) -> Bool {
        left.microsecondsSinceEpoch < right.microsecondsSinceEpoch
    }
}
