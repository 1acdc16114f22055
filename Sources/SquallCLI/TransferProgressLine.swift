import SquallCore

/// The line `squall upload` redraws on a terminal for the transfer moving: its name, a bar, the bytes sent of its
/// length, the rate and the time left; `finalising` once every byte is sent and the server's final response has
/// not come (sending every byte does not prove the server committed it); an indeterminate bar (a block sliding
/// back and forth) when the length is unknown. Then the files done, and how many other transfers run. Pure: the
/// caller measures the rate and passes a tick for the sliding block.
struct TransferProgressLine: Sendable, Hashable {
    var name: String
    var sent: Int64
    /// The upload's length; nil when unknown.
    var size: Int64?
    /// Bytes per second over the last seconds; nil before two samples.
    var bytesPerSecond: Double?
    var finalising = false
    var filesDone = 0
    var files = 1
    /// Transfers running besides this one.
    var others = 0
    /// Advances the indeterminate bar's block.
    var tick = 0

    static let barWidth = 24

    func text(color: Bool) -> String {
        var parts = [name]
        if let size, size > 0 {
            let done = min(sent, size)
            let filled = finalising ? Self.barWidth : Int(done * Int64(Self.barWidth) / size)
            let bar = String(repeating: "#", count: filled)
            let rest = String(repeating: ".", count: Self.barWidth - filled)
            parts.append("[" + (color && filled > 0 ? "\u{1B}[32m\(bar)\u{1B}[0m" : bar) + rest + "]")
            parts.append(finalising ? "100%" : "\(done * 100 / size)%")
            parts.append("\(Self.size(done))/\(Self.size(size))")
        } else {
            // Indeterminate: a three-wide block bouncing across the bar.
            let span = Self.barWidth - 3
            let position = span == 0 ? 0 : (tick / span) % 2 == 0 ? tick % span : span - tick % span
            let bar =
                String(repeating: " ", count: position) + "<=>"
                + String(repeating: " ", count: Self.barWidth - 3 - position)
            parts.append("[" + bar + "]")
            parts.append(Self.size(sent))
        }
        if finalising {
            parts.append("finalising: every byte sent, waiting for the server's response")
        } else if let rate = bytesPerSecond, rate > 0 {
            parts.append(Self.size(Int64(rate)) + "/s")
            if let size, size > sent { parts.append("ETA " + Self.clock(Double(size - sent) / rate)) }
        }
        var tail = "\(filesDone)/\(files) files"
        if others > 0 { tail += ", \(others) more running" }
        parts.append("(" + tail + ")")
        return parts.joined(separator: "  ")
    }

    /// `512 B`, `64.0 KiB`, `2.5 MiB`: one decimal from KiB up.
    static func size(_ bytes: Int64) -> String {
        ByteSize.short(bytes)
    }

    /// `0:07`, `12:30`, `1:02:03`; `--:--` past 100 hours.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 360_000 else { return "--:--" }
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }
}
