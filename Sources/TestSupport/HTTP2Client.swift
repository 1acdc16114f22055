import HTTP2Wire
import HTTPWire
import SquallNet
import TLSKit

/// A small HTTP/2 client for tests (the server's, the proxy's): one connection (TLS with ALPN `h2`, or cleartext with
/// prior knowledge), requests on streams side by side, and what came back on each.
public final class HTTP2Client {
    public static let patience: Duration = .seconds(10)

    /// What one stream got back.
    public struct Stream: Sendable {
        public var interims: [ResponseHead] = []
        public var final: ResponseHead?
        public var body: [UInt8] = []
        public var reset: HTTP2ErrorCode?
        /// The stream closed, and with which code (`NO_ERROR`, or a reset's, `REFUSED_STREAM` for a stream a
        /// `GOAWAY` refused).
        public var closed: HTTP2ErrorCode?
    }

    public let connection: any ByteStream
    public let session: HTTP2Session
    public private(set) var streams: [Int32: Stream] = [:]
    /// The last stream a `GOAWAY` named, once one came.
    public private(set) var goaway: Int32?
    /// The `SETTINGS` the server sent, in order (its first ones included).
    public private(set) var settings: [[HTTP2Setting]] = []
    /// How many of the `PING`s sent (`session.ping()`) the server acknowledged.
    public private(set) var pingsAcknowledged = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects to `url` (`http://…` with prior knowledge, `https://…` trusting `authority`): over TLS the server
    /// must choose `h2` in ALPN (else `HTTP2Client.Failure`).
    public init(url: String, authority: CertificateAuthority?) throws {
        let address = try SocketAddress(parsing: String(url.split(separator: "/").last!))
        if let authority, url.hasPrefix("https://") {
            let tls = try TLSFixtures.clientContext(authority: authority) { $0.alpn = ["h2"] }
            let secure = try TLSStream.connect(to: address, context: tls)
            guard secure.session?.alpn == "h2" else {
                throw Failure("ALPN chose \(secure.session?.alpn ?? "nothing"), not h2")
            }
            connection = secure
        } else {
            connection = PlainStream(socket: try TCPConnector.connect(to: address))
        }
        session = try HTTP2Session(role: .client)
    }

    deinit {
        connection.close()
    }

    /// Why the client gave up.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Opens a stream with a request head; content follows with `send`, unless `end`.
    public func open(_ method: HTTPMethod, _ path: String, _ fields: [(String, String)], end: Bool = false) throws
        -> Int32
    {
        var head = RequestHead(method: method, target: path, fields: ["Host": "127.0.0.1"])
        for (name, value) in fields { head.fields.append(name: name, value: value) }
        let id = try session.submitRequest(HTTP2Heads.fields(of: head, scheme: "http"), endStream: end)
        streams[id] = Stream()
        return id
    }

    /// Queues content on `stream`, ending it when `end`.
    public func send(_ bytes: [UInt8], on stream: Int32, end: Bool = false) {
        session.send(bytes, on: stream)
        if end { session.end(stream) }
    }

    /// Writes and reads until `done` holds (else a timeout after `patience`).
    public func run(until done: (HTTP2Client) -> Bool) throws {
        let deadline = ContinuousClock.now + Self.patience
        while true {
            try flush(deadline)
            if done(self) { return }
            let count = try buffer.withUnsafeMutableBytes { try connection.readSome(into: $0, deadline: deadline) }
            if count == 0 { throw Failure("the server closed the connection") }
            for event in try session.receive(Array(buffer[..<count])) { take(event) }
        }
    }

    /// Runs until `stream` has its final response and content, or was reset.
    public func finish(_ stream: Int32) throws -> Stream {
        try run { $0.streams[stream]?.closed != nil }
        return streams[stream]!
    }

    private func flush(_ deadline: ContinuousClock.Instant) throws {
        while true {
            let output = try session.takeOutput()
            if output.isEmpty { return }
            try connection.writeAll(output, deadline: deadline)
        }
    }

    private func take(_ event: HTTP2Event) {
        switch event {
        case .headers(let id, let fields, _):
            guard let head = HTTP2Heads.response(fields) else { return }
            if head.isInformational {
                streams[id, default: Stream()].interims.append(head)
            } else {
                streams[id, default: Stream()].final = head
            }
        case .data(let id, let bytes):
            streams[id, default: Stream()].body += bytes
        case .reset(let id, let code):
            streams[id, default: Stream()].reset = code
        case .closed(let id, let code):
            streams[id, default: Stream()].closed = code
        case .goaway(let last, _):
            goaway = last
        case .settings(let list):
            settings.append(list)
        case .pingAcknowledged:
            pingsAcknowledged += 1
        case .endStream, .windowUpdate, .ping:
            break
        }
    }
}
