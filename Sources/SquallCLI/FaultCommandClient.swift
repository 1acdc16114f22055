import Foundation
import HTTPExchange
import HTTPWire
import SquallCore
import SquallNet

/// A small blocking HTTP/1.1 client of the control API's native endpoints: one connection per request
/// (`Connection: close`), plain HTTP (the API listens on loopback), an optional bearer token, JSON in and out.
struct ControlAPIClient {
    /// Largest response body read: 16 MiB.
    static let maxResponseBytes = 16 << 20
    /// Connecting must finish, and sending or receiving make progress, within this. Default 10 s.
    static let timeout: Duration = .seconds(10)

    /// `host:port` of the API.
    let authority: String
    /// The URL's path prefix without its trailing `/` (usually empty).
    let basePath: String
    let token: String?

    /// The client of the API at `url` (`http://127.0.0.1:PORT`); a malformed URL is a usage error.
    init(url: String, token: String?, command: [String]) throws(UsageError) {
        guard url.hasPrefix("http://") else {
            throw UsageError(
                "--api must be an http:// URL such as http://127.0.0.1:8474, not '\(url)'", command: command)
        }
        let rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        authority = String(rest[..<slash])
        basePath = String(rest[slash...].reversed().drop { $0 == "/" }.reversed())
        guard (try? SocketAddress(parsing: authority)) != nil else {
            throw UsageError("--api must name HOST:PORT such as http://127.0.0.1:8474, not '\(url)'", command: command)
        }
        self.token = token
    }

    /// Sends one request and returns the status and body; a status of 400 or more throws `CommandFailure`
    /// carrying the server's message.
    @discardableResult
    func send(_ method: HTTPMethod, _ path: String, json: Data? = nil) throws -> [UInt8] {
        var fields: HTTPFields = ["Host": authority, "Connection": "close"]
        if let token { fields.append(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            fields.append(name: "Content-Type", value: "application/json")
            fields.append(name: "Content-Length", value: String(json.count))
        }
        let head = RequestHead(method: method, target: basePath + path, fields: fields)
        let stream = PlainStream(socket: try TCPConnector.connect(authority, timeout: Self.timeout))
        defer { stream.close() }
        try stream.socket.setNonBlocking(true)
        do {
            let response = try HTTPClientStream(stream: stream).exchange(
                head, body: json.map { RequestBody(bytes: Array($0)) }, progressTimeout: Self.timeout,
                bodyLimit: .refuseOver(Self.maxResponseBytes))
            guard response.head.status < 400 else {
                throw CommandFailure(Self.message(status: response.head.status, body: response.body))
            }
            return response.body
        } catch let error as HTTPExchangeError where error.code == .bodyTooLarge {
            throw CommandFailure("the response from \(authority) is over 16 MiB")
        } catch let error as HTTPExchangeError where error.code == .closed {
            throw CommandFailure("\(authority) closed the connection before responding")
        }
    }

    /// The server's `{"error": …}` message, else the status and the body's first line.
    private static func message(status: Int, body: [UInt8]) -> String {
        if case .string(let error)? = JSONValue.reply(body)?["error"] { return error }
        let text = String(decoding: body.prefix(200), as: UTF8.self).split(separator: "\n").first ?? ""
        return "HTTP \(status) \(text)"
    }
}
