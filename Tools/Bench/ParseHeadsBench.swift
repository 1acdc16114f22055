import HTTPWire

/// `parse-heads`: how many small request heads `HTTP1Parser` parses per second on one core.
///
/// The input is a buffer of `--batch` pipelined resumable-upload PATCH heads (Content-Length 0, so each is a
/// whole message), fed again and again to one parser until `--count` heads have been parsed; every head is
/// checked to have come out. Only the calling thread works, so the figure is per core.
enum ParseHeadsBench: BenchCommand {
    static let name = "parse-heads"
    static let usage = "[--count N] [--batch N]"
    static let summary = "parses N small pipelined request heads on one core; prints parse-heads heads= seconds= rate="

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
        let count = try options.count("count") ?? 5_000_000
        let batch = try options.count("batch") ?? 100
        guard count > 0, batch > 0 else { throw BenchError("--count and --batch must be positive") }
        let input = ArraySlice(Array([[UInt8]](repeating: head, count: batch).joined()))
        var parser = HTTP1Parser(role: .server)
        var events: [HTTP1Event] = []
        events.reserveCapacity(batch * 2)
        var parsed = 0
        var checksum = 0
        let started = ContinuousClock.now
        while parsed < count {
            events.removeAll(keepingCapacity: true)
            try parser.feed(input, into: &events)
            for case .requestHead(let request) in events {
                parsed += 1
                checksum &+= request.fields.count
            }
        }
        let elapsed = ContinuousClock.now - started
        guard checksum == parsed * 6 else { throw BenchError("expected 6 fields per head; checksum \(checksum)") }
        let rate = Double(parsed) / elapsed.seconds
        BenchMain.emit(
            "\(name) heads=\(parsed) bytes-per-head=\(head.count) seconds=\(fixed(elapsed.seconds, 4)) rate=\(Int(rate))"
        )
    }
}
