import Foundation
import HTTPWire
import ResumableUpload

extension UploadConnection {
    /// The principal of the request's bearer token (RFC 6750 §2.1); nil after answering 401 when the token is
    /// missing, not this server's, or expired (§3: `WWW-Authenticate: Bearer realm=…`, with
    /// `error="invalid_token"` when a token was sent). The request's body is not read; the connection closes
    /// unless it has none.
    func authenticate(_ head: RequestHead) throws -> String? {
        guard let tokens = server.tokens, let authentication = configuration.authentication else { return nil }
        var challenge = "Bearer realm=\"\(authentication.realm)\""
        if let value = head.fields["Authorization"], let text = BearerToken.credentials(inAuthorization: value) {
            do {
                return try tokens.principal(of: text, now: UploadServer.microsecondsNow())
            } catch .expired {
                challenge += ", error=\"invalid_token\", error_description=\"the access token expired\""
            } catch {
                challenge += ", error=\"invalid_token\", error_description=\"the access token is not valid here\""
            }
        }
        closeUnlessBodyless(head)
        var response = ResponseHead(status: 401, reason: "Unauthorized")
        response.fields.append(name: "WWW-Authenticate", value: challenge)
        if let version = InteropVersion(fields: head.fields) {
            version.stamp(&response.fields)
        }
        response.fields.append(name: "Content-Length", value: "0")
        try send(UploadResponse(head: response))
        return nil
    }

    /// The scheme and authority clients used for this request, for `Location`: RFC 7239 `Forwarded` `proto` and
    /// `host` (a proxy in front of the server sets them), else the server's scheme and the `Host` field, else the
    /// server's own URL. Values that are not a plain host and port are ignored.
    func baseURL(_ head: RequestHead) -> String {
        let forwarded = head.fields["Forwarded"].map(Self.forwardedParameters) ?? [:]
        let ownScheme = server.url.hasPrefix("https://") ? "https" : "http"
        let scheme = forwarded["proto"].flatMap { ["http", "https"].contains($0) ? $0 : nil } ?? ownScheme
        guard let host = forwarded["host"] ?? head.fields["Host"], Self.isPlainAuthority(host) else {
            return server.url
        }
        return scheme + "://" + host
    }

    /// The parameters of the first element of a `Forwarded` value, names lowercased, quotes removed.
    static func forwardedParameters(_ value: String) -> [String: String] {
        let first = value.split(separator: ",", maxSplits: 1).first ?? ""
        var parameters: [String: String] = [:]
        for pair in first.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var text = parts[1].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                text = String(text.dropFirst().dropLast())
            }
            parameters[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] = text
        }
        return parameters
    }

    /// Whether `text` is a host (name, IPv4 or bracketed IPv6) with an optional port, at most 255 characters.
    static func isPlainAuthority(_ text: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-:[]".utf8)
        return (1...255).contains(text.utf8.count) && text.utf8.allSatisfy(allowed.contains)
    }
}
