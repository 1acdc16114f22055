import HTTPWire

/// `parse-heads`: how many small request heads `HTTP1Parser` parses per second on one core.
///
/// The input is a buffer of `--batch` pipelined resumable-upload PATCH heads (Content-Length 0, so each is a
/// whole message), fed again and again to one parser until `--count` heads have been parsed; every head is
/// counted as it comes out and the fields of one head per batch are checked. This repeats `--rounds` times;
/// the best and median rounds are printed (the VM is noisy, and noise only ever slows a round down). Only the
/// calling thread works, so the figure is per core.
enum ParseHeadsBench: BenchCommand {
    static let name = "parse-heads"
    static let usage = "[--count N] [--batch N] [--rounds N]"
    static let summary =
        "parses N small pipelined request heads per round on one core; prints parse-heads heads= best= median="

    static let head = Array(
        ("PATCH /upload/3f2a9c1e7b5d4a60 HTTP/1.1\r\n"
            + "Host: uploads.example.com\r\n"
            + "Content-Type: application/partial-upload\r\n"
            + "Upload-Offset: 3145728\r\n"
            + "Upload-Complete: ?0\r\n"
            + "Upload-Draft-Interop-Version: 6\r\n"
            + "Content-Length: 0\r\n"
            + "\r\n").utf8)

    static func run(_ options: BenchOptions) throws {
        let count = try options.count("count") ?? 2_000_000
        let batch = try options.count("batch") ?? 100
        let rounds = try options.count("rounds") ?? 5
        guard count > 0, batch > 0, rounds > 0 else {
            throw BenchError("--count, --batch and --rounds must be positive")
        }
        let input = ArraySlice(Array([[UInt8]](repeating: head, count: batch).joined()))
        let rates = try (0..<rounds).map { _ in try round(input, batch: batch, count: count) }.sorted()
        BenchMain.emit(
            "\(name) heads=\(count) rounds=\(rounds) bytes-per-head=\(head.count) best=\(Int(rates.last!))"
                + " median=\(Int(rates[rates.count / 2])) worst=\(Int(rates[0]))")
    }

    /// Parses `count` heads (rounded up to whole batches) and returns heads per second.
    private static func round(_ input: ArraySlice<UInt8>, batch: Int, count: Int) throws -> Double {
        var parser = HTTP1Parser(role: .server)
        var events: [HTTP1Event] = []
        events.reserveCapacity(batch * 2)
        var parsed = 0
        var fields = 0
        let started = ContinuousClock.now
        while parsed < count {
            events.removeAll(keepingCapacity: true)
            try parser.feed(input, into: &events)
            for event in events {
                if case .requestHead = event { parsed += 1 }
            }
            if case .requestHead(let request) = events.first { fields += request.fields.count * batch }
        }
        let elapsed = ContinuousClock.now - started
        guard fields == parsed * 6 else { throw BenchError("expected 6 fields per head; counted \(fields)") }
        return Double(parsed) / elapsed.seconds
    }
}
