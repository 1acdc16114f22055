import HTTPWire
import ResumableUpload
import SquallNet
import TLSKit
import UploadServer

/// What a request got back: the interim (1xx) heads in order, then the final head and its content.
struct Exchange {
    var interims: [ResponseHead] = []
    var final: ResponseHead
    var body: [UInt8] = []

    var status: Int { final.status }

    subscript(_ name: String) -> String? { final.fields[name] }
}

/// A small raw HTTP/1.1 client over a `ByteStream`, parsing with `HTTP1Parser(role: .client)`: sends heads and
/// bodies separately (so a test can stop half-way) and collects interim and final responses.
final class RawHTTPClient {
    static let patience: Duration = .seconds(10)

    let stream: any ByteStream
    let host: String
    private var parser = HTTP1Parser(role: .client)
    private var pending: [HTTP1Event] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    init(stream: any ByteStream, host: String) {
        self.stream = stream
        self.host = host
    }

    /// Connects to `server` (plain, or TLS with `tls`).
    convenience init(_ server: UploadServer, tls: TLSContext? = nil) throws {
        let address = try SocketAddress(parsing: String(server.url.split(separator: "/").last!))
        if let tls {
            self.init(stream: try TLSStream.connect(to: address, context: tls), host: address.description)
        } else {
            self.init(stream: PlainStream(socket: try TCPConnector.connect(to: address)), host: address.description)
        }
    }

    /// Sends a request head (with `Host`) and expects a response to it.
    func send(_ method: HTTPMethod, _ target: String, _ fields: [(String, String)] = []) throws {
        var head = RequestHead(method: method, target: target, fields: ["Host": host])
        for (name, value) in fields { head.fields.append(name: name, value: value) }
        parser.expectResponse(to: method)
        try stream.writeAll(try HTTP1Serializer.serialize(head), deadline: deadline())
    }

    /// Sends raw bytes (a body or part of one, or garbage).
    func send(bytes: [UInt8]) throws {
        try stream.writeAll(bytes, deadline: deadline())
    }

    /// Expects a response to raw bytes sent with `send(bytes:)`, read as a response to GET.
    func expectAnyResponse() {
        parser.expectResponse(to: .get)
    }

    /// Reads up to and including the next interim (1xx) response.
    func readInterim() throws -> ResponseHead {
        while true {
            for (index, event) in pending.enumerated() {
                if case .responseHead(let head) = event, head.isInformational {
                    pending.removeFirst(index + 1)
                    return head
                }
            }
            try fill()
        }
    }

    /// Reads the rest of the response: interims not yet read, the final head and its content.
    func readResponse() throws -> Exchange {
        var interims: [ResponseHead] = []
        var final: ResponseHead?
        var body: [UInt8] = []
        while true {
            while !pending.isEmpty {
                switch pending.removeFirst() {
                case .responseHead(let head) where head.isInformational: interims.append(head)
                case .responseHead(let head): final = head
                case .body(let bytes): body += bytes
                case .end:
                    guard let final else { throw TestFailure("a response ended before its head") }
                    return Exchange(interims: interims, final: final, body: body)
                default: throw TestFailure("unexpected event")
                }
            }
            try fill()
        }
    }

    /// Sends a whole request and reads its response.
    func request(
        _ method: HTTPMethod, _ target: String, _ fields: [(String, String)] = [], body: [UInt8] = []
    ) throws -> Exchange {
        let framing = body.isEmpty && method != .post && method != .patch ? [] : [("Content-Length", "\(body.count)")]
        try send(method, target, fields + framing)
        if !body.isEmpty { try send(bytes: body) }
        return try readResponse()
    }

    /// Whether the server closed the connection (end of stream or reset) without sending more.
    func serverClosed() -> Bool {
        do {
            let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline()) }
            return count == 0
        } catch let error as NetError {
            return error.code != .timeout
        } catch {
            return true
        }
    }

    func close() {
        stream.close()
    }

    private func fill() throws {
        let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline()) }
        guard count > 0 else {
            pending += try parser.finish()
            if pending.isEmpty { throw TestFailure("the server closed the connection") }
            return
        }
        pending += try parser.feed(Array(buffer[..<count]))
    }

    private func deadline() -> ContinuousClock.Instant {
        .now + Self.patience
    }
}

/// A test's own failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
