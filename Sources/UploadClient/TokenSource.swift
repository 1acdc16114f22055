import Foundation
import HTTPWire
import Synchronization
import TLSKit

/// Where the client's bearer token comes from (`--token T` or `--token-url URL`).
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

/// Tokens from a token endpoint such as the reference server's `POST /_squall/token?principal=NAME`: an OAuth 2.0
/// token response (RFC 6749 §5.1) whose `access_token` is kept until a refresh is asked for.
public final class TokenEndpoint: TokenSource {
    public let url: String
    private let trustedCAFile: String?
    private let timeout: Duration
    private let current = Mutex<String?>(nil)

    public init(url: String, trustedCAFile: String? = nil, timeout: Duration = .seconds(10)) {
        self.url = url
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
    }

    public var canRefresh: Bool { true }

    public func token(refresh: Bool) throws -> String {
        if !refresh, let token = current.withLock({ $0 }) { return token }
        let token = try fetch()
        current.withLock { $0 = token }
        return token
    }

    private func fetch() throws -> String {
        let target = try HTTPURL(url)
        let tls = try target.endpoint.secure ? TLSContext(client: TLSClientConfiguration(trust: trust)) : nil
        let connection = try HTTPClientConnection.open(to: target.endpoint, tls: tls, timeout: timeout)
        defer { connection.close() }
        let head = RequestHead(method: .post, target: target.target, fields: ["Content-Length": "0"])
        let response = try connection.exchange(head, readTimeout: timeout)
        guard response.head.status == 200,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let token = object["access_token"] as? String, !token.isEmpty
        else {
            throw TransferError(
                .userAuthenticationRequired,
                "the token endpoint \(url) answered \(response.head.status) without a token")
        }
        return token
    }

    private var trust: TLSTrust {
        trustedCAFile.map { .caFile($0) } ?? .systemDefault
    }
}
