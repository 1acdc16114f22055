/// Why a control-API request was refused: a stable `code` to compare on and a human `detail`, sent to the client
/// as Toxiproxy does, `{"error": detail, "status": N}`. A refused request changes nothing.
public struct ControlAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, each with its HTTP status.
    public enum Code: String, Sendable, Hashable {
        /// Bad JSON, a missing field, an unknown toxic type or invalid attributes: 400.
        case badRequest
        /// No token, or the wrong one: 401.
        case unauthorized
        /// Without a token, a request addressed to a name other than loopback, or sent from a page of another
        /// origin (DNS rebinding, a web page posting to 127.0.0.1): 403.
        case forbidden
        /// No such proxy, toxic or endpoint: 404.
        case notFound
        /// The endpoint exists but not with this method: 405.
        case methodNotAllowed
        /// A proxy or toxic of that name exists already: 409.
        case alreadyExists
        /// The request head did not arrive whole within the listener's head timeout: 408.
        case requestTimeout
        /// The body exceeds `ControlAPIConfiguration.maxBodyBytes`: 413.
        case bodyTooLarge
    }

    public var code: Code
    public var detail: String
    /// For `methodNotAllowed`, the methods the endpoint takes, sent as `Allow` (RFC 9110 §15.5.6).
    public var allowedMethods: [String]

    public init(_ code: Code, _ detail: String, allowedMethods: [String] = []) {
        self.code = code
        self.detail = detail
        self.allowedMethods = allowedMethods
    }

    /// The HTTP status the code maps to.
    public var status: Int {
        switch code {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .requestTimeout: 408
        case .alreadyExists: 409
        case .bodyTooLarge: 413
        }
    }

    public var description: String { "\(status) \(detail)" }

    static func missingField(_ field: String) -> ControlAPIError {
        ControlAPIError(.badRequest, "missing required field: \(field)")
    }

    static func proxyNotFound(_ name: String) -> ControlAPIError {
        ControlAPIError(.notFound, "proxy not found: \(name)")
    }

    static func toxicNotFound(_ name: String) -> ControlAPIError {
        ControlAPIError(.notFound, "toxic not found: \(name)")
    }
}
