/// `upload`: one large upload to `squall server` in one streaming creation request, timed from the connect to
/// the end of the final response (so it covers the server's syncs and its hash of the complete data).
///
/// ```
/// squall server --store DIR                                   # → http://127.0.0.1:P
/// squall-bench upload --url http://127.0.0.1:P --size 1GiB    # → upload bytes= seconds= mbps= … intact=yes
/// ```
/// The body is a 256 KiB block of seeded random bytes repeated; with `--hash on` (the default) the client hashes
/// what it sends and the check compares that SHA-256 with the server's listing. Exits non-zero unless intact.
enum UploadBench: BenchCommand {
    static let name = "upload"
    static let usage = "--url URL --size N [--seed N] [--hash on|off] [--timeout SECONDS]"
    static let summary =
        "one creation request (interop 8, Upload-Complete: ?1) of N bytes; prints upload bytes= seconds= mbps= "
        + "status= interims= sha256= intact="

    static func run(_ options: BenchOptions) throws {
        let target = try UploadTarget(url: options.string("url"))
        let length = try options.bytes("size")
        let timeout = Duration.seconds(try options.count("timeout") ?? 600)
        let client = CreationClient(target: target, hashing: try hashing(options), timeout: timeout)
        let outcome = try client.upload(BodyPattern(length: length, seed: UInt64(try options.count("seed") ?? 1)))
        let problem = try AdminListing(from: target, timeout: .seconds(30)).problem(with: outcome, length: length)
        let throughput = Throughput(bytes: outcome.sentBytes, duration: outcome.duration)
        BenchMain.emit(
            throughput.line(name) + " status=\(outcome.final?.status ?? 0) interims=\(outcome.interims)"
                + " sha256=\(outcome.sha256 ?? "-") intact=\(problem == nil ? "yes" : "no")")
        if let problem { throw BenchError("not intact: \(problem)") }
    }

    private static func hashing(_ options: BenchOptions) throws -> Bool {
        switch options.string("hash", default: "on") {
        case "on": return true
        case "off": return false
        case let other: throw BenchError("--hash must be on or off, not '\(other)'")
        }
    }
}
