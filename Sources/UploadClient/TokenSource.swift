import Foundation
import HTTPExchange
import HTTPWire
import SquallCore
import SquallNet
import Synchronization
import TLSKit

/// Where the client's bearer token comes from (`--token T`, `--token-url URL`, `--token-command CMD`).
public protocol TokenSource: Sendable {
    /// The token to send; with `refresh`, a new one (the last one was refused with 401).
    func token(refresh: Bool) throws -> String
    /// Whether asking again can give a different token.
    var canRefresh: Bool { get }
}

/// A fixed token: refreshing gives the same one.
public struct StaticToken: TokenSource {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public func token(refresh: Bool) throws -> String { value }
    public var canRefresh: Bool { false }
}

/// A token source that asks once and keeps the answer until a refresh is asked for.
public protocol FetchingTokenSource: TokenSource {
    var current: Mutex<String?> { get }
    /// A new token.
    func fetch() throws -> String
}

extension FetchingTokenSource {
    public var canRefresh: Bool { true }

    public func token(refresh: Bool) throws -> String {
        if !refresh, let token = current.withLock({ $0 }) { return token }
        let token = try fetch()
        current.withLock { $0 = token }
        return token
    }
}

/// Tokens from a token endpoint such as the reference server's `POST /_squall/token?principal=NAME`: the request
/// (method, body, content type, extra fields) is sent, and the token read from the JSON answer at `tokenPath`
/// (`access_token` as in an OAuth 2.0 token response, RFC 6749 §5.1; `data.token`; `tokens[0].value`).
public final class TokenEndpoint: FetchingTokenSource {
    public let request: TokenRequest
    private let trustedCAFile: String?
    private let timeout: Duration
    public let current = Mutex<String?>(nil)

    public var url: String { request.url }

    public init(request: TokenRequest, trustedCAFile: String? = nil, timeout: Duration = .seconds(10)) {
        self.request = request
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
    }

    public convenience init(url: String, trustedCAFile: String? = nil, timeout: Duration = .seconds(10)) {
        self.init(request: TokenRequest(url: url), trustedCAFile: trustedCAFile, timeout: timeout)
    }

    public func fetch() throws -> String {
        let target = try HTTPURL(request.url)
        let trust = trustedCAFile.map { TLSTrust.caFile($0) } ?? .systemDefault
        let tls = try target.endpoint.secure ? TLSContext(client: TLSClientConfiguration(trust: trust)) : nil
        let connection = try HTTPClientConnection.open(to: target.endpoint, tls: tls, timeout: timeout)
        defer { connection.close() }
        var fields: HTTPFields = ["Content-Length": String(request.body.utf8.count)]
        if let type = request.contentType { fields.append(name: "Content-Type", value: type) }
        for name in request.headers.keys.sorted() { fields.append(name: name, value: request.headers[name]!) }
        let head = RequestHead(method: HTTPMethod(rawValue: request.method), target: target.target, fields: fields)
        let body = request.body.isEmpty ? nil : RequestBody(bytes: Array(request.body.utf8))
        let response = try connection.exchange(head, body: body, readTimeout: timeout)
        guard (200...299).contains(response.head.status) else {
            throw failure("answered \(response.head.status)")
        }
        let answer: JSONValue
        do {
            answer = try JSONValue.parse(response.body)
        } catch {
            throw failure("answered something that is not JSON: \(error)")
        }
        guard case .string(let token)? = answer.value(atPath: request.tokenPath), !token.isEmpty else {
            throw failure("answered JSON without a token string at \(request.tokenPath)")
        }
        return token
    }

    private func failure(_ what: String) -> TransferError {
        TransferError(.userAuthenticationRequired, "the token endpoint \(request.method) \(request.url) \(what)")
    }
}

/// Tokens printed by a command (an argument vector, run without a shell; `--token-command` runs its text with
/// `/bin/sh -c`): its standard output, trimmed, is the token; it runs again for each refresh. A command that
/// exits non-zero, prints nothing, or runs longer than `timeout` fails with its standard error. With a `stop`, a
/// command still running when the process is asked to stop is stopped with it.
public final class CommandToken: FetchingTokenSource {
    public let arguments: [String]
    private let timeout: Duration
    private let stop: ProcessStop?
    public let current = Mutex<String?>(nil)

    public init(arguments: [String], timeout: Duration = .seconds(30), stop: ProcessStop? = nil) {
        self.arguments = arguments
        self.timeout = timeout
        self.stop = stop
    }

    public func fetch() throws -> String {
        let run = try CommandRun(arguments, timeout: timeout, stop: stop)
        let token = run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard run.status == 0, !token.isEmpty else {
            let reason = run.status == 0 ? "printed no token" : "exited with status \(run.status)"
            throw TransferError(
                .userAuthenticationRequired,
                "the token command \(arguments.joined(separator: " ")) \(reason): \(run.errors.prefix(500))")
        }
        return token
    }
}
