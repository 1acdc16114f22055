/// Bytes moved over a measured time, printed as `NAME bytes=… seconds=… mbps=…` (mbps: 10^6 bytes/s).
struct Throughput {
    let bytes: Int64
    let duration: Duration

    var seconds: Double { duration.seconds }

    var megabytesPerSecond: Double {
        seconds > 0 ? Double(bytes) / seconds / 1e6 : 0
    }

    /// The machine-readable result line.
    func line(_ name: String) -> String {
        "\(name) bytes=\(bytes) seconds=\(fixed(seconds, 4)) mbps=\(fixed(megabytesPerSecond, 1))"
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// `value` with exactly `digits` decimals, e.g. `fixed(1.5, 4)` is `1.5000`.
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int64((value * scale).rounded())
    let whole = scaled / Int64(scale)
    let fraction = String(scaled % Int64(scale))
    return "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
}
