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
    /// The longest name kept whole when the line must be shortened.
    static let nameWidth = 24

    /// `name` in at most `width` characters, its end replaced by "…" when cut.
    static func shortened(_ name: String, to width: Int) -> String {
        name.count <= width ? name : String(name.prefix(max(1, width - 1))) + "…"
    }

    /// The line, at most `width` characters when given: past it, a name longer than `nameWidth` is cut short
    /// first (with "…"), then the time left goes, then the rate, the reason for finalising, the files, the bar
    /// narrows, and last the name is cut shorter. Bar, percentage and bytes all show one figure, the bytes sent
    /// (`sent`), and the line says so.
    func text(color: Bool, width: Int? = nil) -> String {
        var barWidth = Self.barWidth
        var keepsETA = true
        var keepsRate = true
        var keepsFiles = true
        var saysWhyFinalising = true
        var name = self.name
        func assemble(_ color: Bool) -> String {
            parts(
                color: color, barWidth: barWidth, name: name, eta: keepsETA, rate: keepsRate, files: keepsFiles,
                why: saysWhyFinalising
            ).joined(separator: "  ")
        }
        guard let width else { return assemble(color) }
        var steps: [() -> Void] = [
            { name = Self.shortened(name, to: Self.nameWidth) }, { keepsETA = false }, { keepsRate = false },
            { saysWhyFinalising = false }, { keepsFiles = false }, { barWidth = 10 },
        ]
        while assemble(false).count > width, !steps.isEmpty { steps.removeFirst()() }
        let over = assemble(false).count - width
        if over > 0 { name = Self.shortened(name, to: max(2, name.count - over)) }
        // A terminal too narrow even for that gets the plain line cut at its width.
        if assemble(false).count > width { return String(assemble(false).prefix(width)) }
        return assemble(color)
    }

    private func parts(
        color: Bool, barWidth: Int, name: String, eta: Bool, rate: Bool, files: Bool, why: Bool
    ) -> [String] {
        var parts = [name]
        if let size, size > 0 {
            let done = min(sent, size)
            let filled = finalising ? barWidth : Int(done * Int64(barWidth) / size)
            let bar = String(repeating: "#", count: filled)
            let rest = String(repeating: ".", count: barWidth - filled)
            parts.append("[" + (color && filled > 0 ? "\u{1B}[32m\(bar)\u{1B}[0m" : bar) + rest + "]")
            parts.append(finalising ? "100%" : "\(done * 100 / size)%")
            parts.append("\(Self.size(done))/\(Self.size(size)) sent")
        } else {
            // Indeterminate: a three-wide block bouncing across the bar.
            let span = barWidth - 3
            let position = span == 0 ? 0 : (tick / span) % 2 == 0 ? tick % span : span - tick % span
            let bar =
                String(repeating: " ", count: position) + "<=>"
                + String(repeating: " ", count: barWidth - 3 - position)
            parts.append("[" + bar + "]")
            parts.append(Self.size(sent) + " sent")
        }
        if finalising {
            parts.append(why ? "finalising: every byte sent, waiting for the server's response" : "finalising")
        } else if let bytesPerSecond, bytesPerSecond > 0, rate {
            parts.append(Self.size(Int64(bytesPerSecond)) + "/s")
            if eta, let size, size > sent { parts.append("ETA " + Self.clock(Double(size - sent) / bytesPerSecond)) }
        }
        if files {
            var tail = "\(filesDone)/\(self.files) files"
            if others > 0 { tail += ", \(others) more running" }
            parts.append("(" + tail + ")")
        }
        return parts
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
