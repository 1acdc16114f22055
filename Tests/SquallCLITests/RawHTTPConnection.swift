import Foundation
import SquallNet
import TestSupport

/// One HTTP/1.1 response head as read off the wire, with its content when it has one.
struct RawResponse {
    var status: Int
    /// The field lines in order, as sent.
    var fields: [(name: String, value: String)]
    var body: [UInt8] = []

    /// The first value of field `name` (compared case-insensitively).
    subscript(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A minimal HTTP/1.1 client over a plain TCP connection for tests that must not trust the server's own parser:
/// sends raw heads and bodies (so a test can stop half-way) and splits responses with a tiny line parser.
///
/// Responses are framed by `Content-Length` only (the server under test never chunks); anything else is a test
/// failure. Every read and write has a deadline of `patience`.
final class RawHTTPConnection {
    static let patience: Duration = .seconds(10)

    let stream: PlainStream
    private let authority: String
    private var received: [UInt8] = []

    /// Connects to `authority` (`127.0.0.1:PORT`).
    init(_ authority: String) throws {
        self.authority = authority
        stream = PlainStream(socket: try TCPConnector.connect(authority))
    }

    deinit {
        stream.close()
    }

    /// Sends a request head with `Host` and the given fields.
    func sendHead(_ method: String, _ target: String, _ fields: [(String, String)] = []) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        try send(Array((text + "\r\n").utf8))
    }

    /// Sends raw bytes.
    func send(_ bytes: [UInt8]) throws {
        try stream.writeAll(bytes, deadline: .now + Self.patience)
    }

    /// Sends the bytes of `pattern` at offsets `range`, 64 KiB at a time.
    func send(_ pattern: BytePattern, _ range: Range<Int64>) throws {
        var offset = range.lowerBound
        while offset < range.upperBound {
            var chunk = [UInt8](repeating: 0, count: Int(min(64 * 1024, range.upperBound - offset)))
            chunk.withUnsafeMutableBytes { pattern.fill($0, offset: offset) }
            try send(chunk)
            offset += Int64(chunk.count)
        }
    }

    /// Reads the next response head (interim or final) without its content.
    func readHead() throws -> RawResponse {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = firstRange(of: end) {
                let text = String(decoding: received[..<range.lowerBound], as: UTF8.self)
                received.removeFirst(range.upperBound)
                return try Self.parseHead(text)
            }
            guard received.count < 64 * 1024 else { throw TLSFixtures.Failure("a response head over 64 KiB") }
            try fill()
        }
    }

    /// Reads interim responses up to the final one and its content; `toHead` when the request was a HEAD.
    func readResponse(toHead: Bool = false) throws -> (interims: [RawResponse], final: RawResponse) {
        var interims: [RawResponse] = []
        while true {
            var head = try readHead()
            guard (100..<200).contains(head.status) else {
                if !toHead { head.body = try readContent(of: head) }
                return (interims, head)
            }
            interims.append(head)
        }
    }

    /// Sends a whole request (with `Content-Length` when `body` is not empty) and reads its response.
    func request(
        _ method: String, _ target: String, _ fields: [(String, String)] = [], body: [UInt8] = []
    ) throws -> (interims: [RawResponse], final: RawResponse) {
        let framing = body.isEmpty ? [] : [("Content-Length", "\(body.count)")]
        try sendHead(method, target, fields + framing)
        if !body.isEmpty { try send(body) }
        return try readResponse(toHead: method == "HEAD")
    }

    /// Reads heads until the server closes the connection (end of stream or reset); returns them. A timeout is
    /// an error.
    func readHeadsUntilClosed() throws -> [RawResponse] {
        var heads: [RawResponse] = []
        while true {
            do {
                heads.append(try readHead())
            } catch let error as NetError where [.closed, .connectionReset].contains(error.code) {
                return heads
            }
        }
    }

    /// Reads (a stream with no length, such as server-sent events) until `text` has arrived; returns all read so
    /// far, which stays buffered.
    func read(until text: String) throws -> String {
        let needle = Array(text.utf8)
        while firstRange(of: needle) == nil { try fill() }
        return String(decoding: received, as: UTF8.self)
    }

    private func readContent(of head: RawResponse) throws -> [UInt8] {
        guard head["Transfer-Encoding"] == nil else { throw TLSFixtures.Failure("a chunked response") }
        let length = Int(head["Content-Length"] ?? "0") ?? -1
        guard length >= 0 else { throw TLSFixtures.Failure("a bad Content-Length") }
        while received.count < length { try fill() }
        defer { received.removeFirst(length) }
        return Array(received[..<length])
    }

    private func fill() throws {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: .now + Self.patience) }
        guard count > 0 else { throw NetError(.closed, "the server closed the connection") }
        received += buffer[..<count]
    }

    private func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard received.count >= needle.count else { return nil }
        for start in 0...(received.count - needle.count)
        where received[start..<start + needle.count].elementsEqual(needle) {
            return start..<start + needle.count
        }
        return nil
    }

    /// `HTTP/1.1 NNN reason` then `name: value` lines.
    private static func parseHead(_ text: String) throws -> RawResponse {
        let lines = text.components(separatedBy: "\r\n")
        let words = lines[0].split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0] == "HTTP/1.1", let status = Int(words[1]) else {
            throw TLSFixtures.Failure("a bad status line '\(lines[0])'")
        }
        let fields = try lines.dropFirst().map { line in
            guard let colon = line.firstIndex(of: ":") else { throw TLSFixtures.Failure("a bad field line '\(line)'") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (name: String(line[..<colon]), value: value)
        }
        return RawResponse(status: status, fields: fields)
    }
}
