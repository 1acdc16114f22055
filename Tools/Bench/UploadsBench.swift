import SquallNet
import Synchronization

/// `uploads`: many concurrent uploads to one `squall server`, each checked intact against the server's listing.
///
/// Each upload runs on its own thread and connection: one creation request (see `CreationClient`) whose body is
/// a pattern seeded by `--seed` plus the upload's index, so every upload has different content. Once all are
/// done, `GET /_squall/uploads` must list each one complete at its full length with the SHA-256 the client
/// computed while sending. Prints one line, `uploads count= intact= bytes= seconds= mbps=` (wall time from the
/// first connect to the last final response; bytes and mbps count intact uploads only), the problems on stderr,
/// and exits non-zero unless every upload is intact.
enum UploadsBench: BenchCommand {
    static let name = "uploads"
    static let usage = "--url URL --count N --size N [--seed N] [--timeout SECONDS]"
    static let summary =
        "N concurrent uploads of the given size, one thread and connection each, all checked against "
        + "/_squall/uploads; prints uploads count= intact= bytes= seconds= mbps="

    static func run(_ options: BenchOptions) throws {
        let target = try UploadTarget(url: options.string("url"))
        guard let count = try options.count("count") else { throw BenchError("missing --count") }
        let length = try options.bytes("size")
        let seed = UInt64(try options.count("seed") ?? 1)
        let client = CreationClient(target: target, timeout: .seconds(try options.count("timeout") ?? 600))

        let clock = ContinuousClock()
        let started = clock.now
        let outcomes = Mutex([Result<CreationOutcome, BenchError>?](repeating: nil, count: count))
        let threads = (0..<count).map { index in
            ConnectionThread(name: "upload-\(index)") {
                let result: Result<CreationOutcome, BenchError>
                do {
                    result = .success(try client.upload(BodyPattern(length: length, seed: seed &+ UInt64(index))))
                } catch {
                    result = .failure(BenchError("\(error)"))
                }
                outcomes.withLock { $0[index] = result }
            }
        }
        for thread in threads { thread.join() }
        let wall = clock.now - started

        let listing = try AdminListing(from: target, timeout: .seconds(30))
        let problems = outcomes.withLock { results in
            results.enumerated().compactMap { index, result in
                Self.problem(result, listing: listing, length: length).map { "upload \(index): \($0)" }
            }
        }
        for problem in problems { BenchMain.report(problem) }
        let intact = count - problems.count
        let throughput = Throughput(bytes: Int64(intact) * length, duration: wall)
        BenchMain.emit("\(name) count=\(count) intact=\(intact) " + throughput.line("").dropFirst())
        if !problems.isEmpty { throw BenchError("\(problems.count) of \(count) uploads not intact") }
    }

    private static func problem(
        _ result: Result<CreationOutcome, BenchError>?, listing: AdminListing, length: Int64
    ) -> String? {
        switch result {
        case nil: "no result"
        case .failure(let error): error.description
        case .success(let outcome): listing.problem(with: outcome, length: length)
        }
    }
}
