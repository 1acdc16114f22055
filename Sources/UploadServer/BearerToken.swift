import Foundation
import TLSKit

/// An access token of the reference server (RFC 6750 bearer token): who holds it and when it was issued and
/// expires, signed with the server's key so that it needs no table and survives a restart.
///
/// Text form: `sq1.<payload>.<mac>`, both parts base64url without padding (RFC 4648 §5); the payload is
/// `principal \n issued-µs \n expires-s`, the MAC is HMAC-SHA-256 of `sq1.<payload>` under the key.
public struct BearerToken: Sendable, Equatable {
    /// The principal the token authenticates (`BearerToken.isValidPrincipal`).
    public var principal: String
    /// When it was issued, in microseconds since 1970; unique per server (`TokenAuthority` keeps it increasing).
    public var issuedAt: Int64
    /// When it stops being accepted, in seconds since 1970.
    public var expiresAt: Int64

    public init(principal: String, issuedAt: Int64, expiresAt: Int64) {
        self.principal = principal
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// Why a token is not accepted.
    public enum Rejection: Error, Equatable, Sendable {
        /// Not a token of this server: bad form, bad signature, or signed with another key.
        case invalid
        /// Past its expiry, or issued before the last "expire all tokens".
        case expired
    }

    static let prefix = "sq1."

    /// Principals are 1 to 64 characters from `A-Z a-z 0-9 . _ @ -`.
    public static func isValidPrincipal(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (1...64).contains(bytes.count)
            && bytes.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x5F || byte == 0x40 || byte == 0x2D
            }
    }

    /// The signed text form.
    public func encoded(key: [UInt8]) -> String {
        let payload = Self.base64URL(Array("\(principal)\n\(issuedAt)\n\(expiresAt)".utf8))
        let signed = Self.prefix + payload
        return signed + "." + Self.base64URL(HMACSHA256.authenticate(Array(signed.utf8), key: key))
    }

    /// The token `text` stands for, when its signature under `key` is right; its expiry is not checked here.
    public static func decode(_ text: String, key: [UInt8]) throws(Rejection) -> BearerToken {
        guard text.hasPrefix(prefix), let dot = text.lastIndex(of: "."),
            dot >= text.index(text.startIndex, offsetBy: 4),
            let mac = bytes(base64URL: text[text.index(after: dot)...])
        else { throw .invalid }
        let signed = text[..<dot]
        guard HMACSHA256.equal(mac, HMACSHA256.authenticate(Array(signed.utf8), key: key)),
            let payload = bytes(base64URL: signed.dropFirst(prefix.count))
        else { throw .invalid }
        let parts = String(decoding: payload, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard parts.count == 3, isValidPrincipal(String(parts[0])), let issued = Int64(parts[1]),
            let expires = Int64(parts[2])
        else { throw .invalid }
        return BearerToken(principal: String(parts[0]), issuedAt: issued, expiresAt: expires)
    }

    /// The token of an `Authorization: Bearer <token>` value (scheme case-insensitive, RFC 6750 §2.1); nil for
    /// another scheme or a malformed value.
    public static func credentials(inAuthorization value: String) -> String? {
        let parts = value.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1])
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=".utf8)
        return token.utf8.allSatisfy(allowed.contains) ? token : nil
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64URL text: Substring) -> [UInt8]? {
        guard !text.contains("+"), !text.contains("/"), !text.contains("=") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
