/// A request method: a case-sensitive token (RFC 9110 §9.1).
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    /// Wraps any string; the serializer rejects one that is not a token.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String {
        rawValue
    }

    public static var get: HTTPMethod { HTTPMethod(rawValue: "GET") }
    public static var head: HTTPMethod { HTTPMethod(rawValue: "HEAD") }
    public static var post: HTTPMethod { HTTPMethod(rawValue: "POST") }
    public static var put: HTTPMethod { HTTPMethod(rawValue: "PUT") }
    public static var patch: HTTPMethod { HTTPMethod(rawValue: "PATCH") }
    public static var delete: HTTPMethod { HTTPMethod(rawValue: "DELETE") }
    public static var options: HTTPMethod { HTTPMethod(rawValue: "OPTIONS") }
    public static var connect: HTTPMethod { HTTPMethod(rawValue: "CONNECT") }
    public static var trace: HTTPMethod { HTTPMethod(rawValue: "TRACE") }
}
