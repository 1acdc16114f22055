import HTTPWire

/// `proxy-latency`: the round trip of a small request over one kept-alive connection, so that the script can
/// compare going through the proxy with going straight to the same `proxy-responder`.
///
/// ```
/// squall-bench proxy-latency --to 127.0.0.1:R --requests 20000    # direct
/// squall-bench proxy-latency --to 127.0.0.1:P --requests 20000    # through `squall-bench proxy --mode http`
///   # → proxy-latency requests=20000 p50_us=… p90_us=… p99_us=… max_us=…
/// ```
/// Each request is `GET /ping` with no content, timed from before its write to the end of its response (`200`,
/// content `0`). The first `--warmup` requests (default 200) are not counted.
enum ProxyLatencyBench: BenchCommand {
    static let name = "proxy-latency"
    static let usage = "--to ADDR --requests N [--warmup N] [--ca-file FILE] [--server-name NAME]"
    static let summary =
        "N sequential GETs over one keep-alive connection; prints proxy-latency requests= p50_us= p90_us= "
        + "p99_us= max_us="

    static func run(_ options: BenchOptions) throws {
        let requests = try options.count("requests") ?? 10_000
        let warmup = try options.count("warmup") ?? 200
        let connection = try ProxyClientConnection(options)
        let request = try ProxyClientConnection.head(.get, "/ping")
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(requests)
        for index in 0..<(warmup + requests) {
            let started = clock.now
            try connection.send(request)
            let response = try connection.readResponse()
            let elapsed = clock.now - started
            guard response.status == 200, response.text == "0" else {
                throw BenchError("request \(index): status \(response.status), content '\(response.text)'")
            }
            if index >= warmup { samples.append(elapsed) }
        }
        samples.sort()
        let percentiles = [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("max", 1.0)].map { label, fraction in
            "\(label)_us=\(fixed(microseconds(percentile(fraction, of: samples)), 1))"
        }
        BenchMain.emit("\(name) requests=\(requests) " + percentiles.joined(separator: " "))
    }

    /// The nearest-rank percentile of sorted, non-empty `samples` (`fraction` 1 is the largest).
    static func percentile<Sample>(_ fraction: Double, of samples: [Sample]) -> Sample {
        let rank = Int((fraction * Double(samples.count)).rounded(.up))
        return samples[min(max(rank, 1), samples.count) - 1]
    }

    static func microseconds(_ duration: Duration) -> Double {
        duration.seconds * 1e6
    }
}
