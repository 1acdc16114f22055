/// `announce`: how long a server takes to announce a creation, from the request head's last byte to the 104 that
/// carries `Location` (issue 26). Until it comes a client cannot resume, so a cut before it starts the upload over.
///
/// ```
/// squall server --store DIR                                           # → http://127.0.0.1:P
/// squall-bench announce --url http://127.0.0.1:P --count 200 --size 8MiB
///   # → announce count=200 p50_us= p99_us= max_us= sent_p50= sent_p99=
/// ```
/// Each creation (interop 8, `Upload-Complete: ?1`) streams its body as a client does, on one connection of its own,
/// until the 104 with `Location` arrives; the connection is then reset (the server keeps what it got, resumable).
/// `sent_*` are the body bytes the socket had taken by then: on loopback a client pushes megabytes before any 104
/// can come back. A creation answered without a 104 fails the run.
enum AnnounceBench: BenchCommand {
    static let name = "announce"
    static let usage = "--url URL [--count N] [--size N] [--timeout SECONDS]"
    static let summary =
        "N creations one after another, each reset at its 104; prints announce count= p50_us= p99_us= max_us= "
        + "sent_p50= sent_p99="

    static func run(_ options: BenchOptions) throws {
        let target = try UploadTarget(url: options.string("url"))
        let count = try options.count("count") ?? 200
        let length = try options.bytes("size", default: 8 << 20)
        guard (1...100_000).contains(count) else { throw BenchError("--count must be 1…100000, not \(count)") }
        let timeout = Duration.seconds(try options.count("timeout") ?? 30)
        var client = CreationClient(target: target, hashing: false, timeout: timeout)
        client.stopAtAnnouncement = true
        var latencies: [Duration] = []
        var sent: [Int64] = []
        for index in 0..<count {
            let outcome = try client.upload(BodyPattern(length: length, seed: UInt64(index + 1)))
            guard let after = outcome.announcedAfter, let bytes = outcome.sentBeforeAnnouncement else {
                let status = outcome.final.map { "\($0.status)" } ?? "none"
                throw BenchError("creation \(index + 1) got no 104 with Location (final status \(status))")
            }
            latencies.append(after)
            sent.append(bytes)
        }
        latencies.sort()
        sent.sort()
        func microseconds(_ duration: Duration) -> Int64 { Int64(duration / .microseconds(1)) }
        func percentile<Sample>(_ fraction: Double, _ samples: [Sample]) -> Sample {
            ProxyLatencyBench.percentile(fraction, of: samples)
        }
        BenchMain.emit(
            "\(name) count=\(count) p50_us=\(microseconds(percentile(0.5, latencies)))"
                + " p99_us=\(microseconds(percentile(0.99, latencies))) max_us=\(microseconds(latencies.last!))"
                + " sent_p50=\(percentile(0.5, sent)) sent_p99=\(percentile(0.99, sent))")
    }
}
