import HTTPWire
import ResumableUpload
import UploadClient

/// Robustness cases: a server must answer a head that arrives in many small writes or slowly (within its head
/// timeout), and refuse a huge head without hanging or falling over. Bad offsets are append cases
/// (`append-negative-offset`, `append-malformed-offset`), an unknown upload is `head-unknown`.
extension CheckCatalog {
    /// The huge head: this many filler fields of `fillerSize` bytes each, 83 KiB in all (servers commonly refuse
    /// heads past 8 to 64 KiB).
    static let fillerFields = 200
    static let fillerSize = 400

    static let robustness: [CheckCase] = [
        pacedHead(
            "split-head", checks: "a complete creation whose head arrives one byte per write, 1 ms apart, is answered",
            size: 1, gap: .milliseconds(1)),
        pacedHead(
            "slow-head", checks: "a complete creation whose head arrives 4 bytes every 10 ms is answered",
            size: 4, gap: .milliseconds(10)),
        CheckCase(
            "huge-head",
            checks:
                "a request with an 83 KiB head (200 fields) gets 431 or 400, not a hang, and the server answers the next one"
        ) { session throws(CheckFailure) in
            var request = session.creation(complete: true, body: [])
            let filler = String(repeating: "x", count: fillerSize)
            for index in 0..<fillerFields {
                request.head.fields.append(name: "X-Squall-Filler-\(index)", value: filler)
            }
            let answer = try session.send(request).expect([431, 400], "431 Request Header Fields Too Large, or 400")
            // Still serving: a plain HEAD on the creation URL gets an answer, whatever its status.
            let probe = try session.send(CheckRequest(.head, session.creationURL))
            return "\(answer.summary()); then HEAD \(session.creationURL.target): \(probe.status)"
        },
    ]

    /// A complete creation of 16 bytes whose head is written `size` bytes at a time, `gap` apart: answered 2xx.
    static func pacedHead(_ name: String, checks: String, size: Int, gap: Duration) -> CheckCase {
        CheckCase(name, checks: checks + " (2xx)") { session throws(CheckFailure) in
            var request = session.creation(complete: true, body: CheckSession.content(16), length: 16)
            request.delivery = .headInPieces(size: size, gap: gap)
            return try session.send(request).expectSuccess().summary()
        }
    }
}
