import HTTPWire
import SquallNet
import TLSKit

/// One keep-alive HTTP/1.1 client connection of the proxy benchmarks, plain or (with a CA file) TLS: writes
/// request heads and bodies, reads responses with `HTTP1Parser`. Blocking, on the caller's thread.
final class ProxyClientConnection {
    /// What one response said: its status and (the first 4 KiB of) its content.
    struct Response {
        var status: Int
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The most content kept of a response.
    static let bodyLimit = 4096
    let stream: any ByteStream
    private var parser = HTTP1Parser(role: .client)
    private var events: [HTTP1Event] = []
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)

    /// Connects to `address`; over TLS as `serverName` when `context` is given. TCP_NODELAY, so that no request
    /// waits for an acknowledgement.
    init(to address: SocketAddress, context: TLSContext?, serverName: String) throws {
        let socket = try TCPConnector.connect(to: address)
        socket.setNoDelay()
        guard let context else {
            stream = PlainStream(socket: socket)
            return
        }
        do {
            let tls = try TLSStream(socket: socket, context: context, serverName: serverName)
            try tls.handshake(timeout: .seconds(10))
            stream = tls
        } catch {
            socket.abort()
            throw error
        }
    }

    /// Connects to `--to`, over TLS when `--ca-file` is given (asking for `--server-name`, default localhost).
    convenience init(_ options: BenchOptions) throws {
        try self.init(
            to: options.address("to"), context: try Self.context(options),
            serverName: options.string("server-name", default: TLSEndpoints.defaultHost))
    }

    deinit {
        buffer.deallocate()
        stream.close()
    }

    /// The client context `--ca-file` asks for, nil without it (plain).
    static func context(_ options: BenchOptions) throws -> TLSContext? {
        guard let file = try? options.string("ca-file") else { return nil }
        return try TLSEndpoints.clientContext(caFile: file)
    }

    /// A request head without content, e.g. `GET /ping`, or with `Content-Length: length`.
    static func head(_ method: HTTPMethod, _ target: String, contentLength length: Int64? = nil) throws -> [UInt8] {
        var fields: HTTPFields = ["Host": TLSEndpoints.defaultHost]
        if let length { fields.append(name: "Content-Length", value: String(length)) }
        return try HTTP1Serializer.serialize(RequestHead(method: method, target: target, fields: fields))
    }

    /// Writes every byte of `bytes`.
    func send(_ bytes: [UInt8]) throws {
        try stream.writeAll(bytes)
    }

    /// Reads the next final response to its end (interim responses are skipped).
    func readResponse() throws -> Response {
        var response: Response?
        while true {
            let count = try stream.readSome(into: buffer)
            guard count > 0 else { throw BenchError("the connection closed before the end of a response") }
            events.removeAll(keepingCapacity: true)
            try parser.feed(Array(buffer[..<count])[...], into: &events)
            for event in events {
                switch event {
                case .responseHead(let head) where !head.isInformational:
                    response = Response(status: head.status, body: [])
                case .body(let bytes):
                    let room = Self.bodyLimit - (response?.body.count ?? Self.bodyLimit)
                    response?.body += bytes.prefix(max(room, 0))
                case .end:
                    if let response { return response }
                default: break
                }
            }
        }
    }
}
