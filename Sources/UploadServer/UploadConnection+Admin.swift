import Foundation
import HTTPWire
import ResumableUpload

extension UploadConnection {
    /// Where the server's own endpoints live; never an upload path, never authenticated.
    static let adminPrefix = "/_squall/"
    /// The largest body `POST /_squall/token` reads.
    static let tokenRequestLimit = 4096

    /// The server's own endpoints, for the harness and for users:
    /// - `GET /_squall/uploads`: the store as JSON (`UploadAdminListing`); `GET /_squall/uploads/ID` one upload
    ///   (404 when the store has none by that id), as a server profile's introspection reads it.
    /// - `POST /_squall/token`: a bearer token (`--auth` only) for the principal named by the `principal`
    ///   query or form parameter (default `squall`), answered as an OAuth 2.0 token response (RFC 6749 §5.1).
    /// - `POST /_squall/expire-tokens`: expires every token issued so far (`--auth` only); 204.
    func serveAdmin(_ head: RequestHead) throws {
        let path = String(head.target.prefix { $0 != "?" })
        if path.hasPrefix("/_squall/uploads/"), head.method == .get {
            closeUnlessBodyless(head)
            let id = String(path.dropFirst("/_squall/uploads/".count))
            guard let entry = UploadAdminListing.entries(server.store.list()).first(where: { $0.id == id }) else {
                return try sendEmpty(404, "Not Found")
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try sendJSON(200, "OK", Array(try encoder.encode(entry)))
        }
        let routes: [String: HTTPMethod] = [
            "/_squall/uploads": .get, "/_squall/token": .post, "/_squall/expire-tokens": .post,
        ]
        guard let method = routes[path], server.tokens != nil || path == "/_squall/uploads" else {
            closeUnlessBodyless(head)
            return try sendEmpty(404, "Not Found")
        }
        guard head.method == method else {
            closeUnlessBodyless(head)
            return try sendEmpty(405, "Method Not Allowed", ["Allow": method.rawValue])
        }
        switch path {
        case "/_squall/uploads":
            closeUnlessBodyless(head)
            try sendJSON(200, "OK", try UploadAdminListing.json(server.store.list()))
        case "/_squall/token":
            try issueToken(head)
        default:
            closeUnlessBodyless(head)
            try server.expireTokens()
            try sendEmpty(204, "No Content")
        }
    }

    /// `POST /_squall/token`: reads the small form body, then answers the token or 400.
    private func issueToken(_ head: RequestHead) throws {
        guard let form = try readSmallBody() else { return sendStatusAndClose(413, "Content Too Large") }
        let query = head.target.firstIndex(of: "?").map { String(head.target[head.target.index(after: $0)...]) }
        let principal =
            Self.formValue("principal", in: String(decoding: form, as: UTF8.self))
            ?? query.flatMap { Self.formValue("principal", in: $0) } ?? "squall"
        guard BearerToken.isValidPrincipal(principal), let token = server.issueToken(for: principal) else {
            let problem =
                #"{"error":"invalid_request","error_description":"principal must be 1 to 64 of A-Z a-z 0-9 . _ @ -"}"#
            return try sendJSON(400, "Bad Request", Array(problem.utf8))
        }
        let lifetime = configuration.authentication?.tokenLifetime ?? 0
        let body: [String: Any] = [
            "access_token": token, "token_type": "Bearer", "expires_in": lifetime, "principal": principal,
        ]
        try sendJSON(200, "OK", Array(try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
    }

    /// The request's body when it has at most `tokenRequestLimit` bytes; nil (the connection then closes) when it
    /// has more.
    private func readSmallBody() throws -> [UInt8]? {
        var body: [UInt8] = []
        try continueIfExpected()
        while true {
            switch try nextBodyPart() {
            case .data(let bytes):
                body += bytes
                if body.count > Self.tokenRequestLimit { return nil }
            case .end:
                return body
            }
        }
    }

    /// The value of `name` in `application/x-www-form-urlencoded` text (`+` is a space), or nil.
    static func formValue(_ name: String, in text: String) -> String? {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name else { continue }
            return parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }

    func sendEmpty(_ status: Int, _ reason: String, _ fields: [String: String] = [:]) throws {
        var head = ResponseHead(status: status, reason: reason, fields: ["Content-Length": "0"])
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { head.fields.append(name: name, value: value) }
        try send(UploadResponse(head: head))
    }

    private func sendJSON(_ status: Int, _ reason: String, _ body: [UInt8]) throws {
        let head = ResponseHead(
            status: status, reason: reason,
            fields: [
                "Content-Type": "application/json", "Content-Length": String(body.count), "Cache-Control": "no-store",
            ])
        try send(UploadResponse(head: head, body: body))
    }
}
