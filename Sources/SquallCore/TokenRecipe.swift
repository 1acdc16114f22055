/// How the client gets a bearer token from an outside server.
public enum TokenRecipe: Sendable, Hashable {
    /// One token for the whole run (it cannot be refreshed).
    case fixed(String)
    /// A token endpoint: the request to send and where the token is in its JSON answer.
    case endpoint(TokenRequest)
    /// A command whose standard output (trimmed) is the token; run again to refresh.
    case command([String])
}

/// A request for a token: `POST url` with `body`, the token at `tokenPath` of the JSON answer (`access_token`,
/// `data.token`, `tokens[0].value`).
public struct TokenRequest: Sendable, Hashable {
    public var url: String
    public var method = "POST"
    public var body = ""
    public var contentType: String?
    public var tokenPath = "access_token"
    /// Extra request header fields (`Authorization` with a client secret, an API key).
    public var headers: [String: String] = [:]

    public init(url: String) {
        self.url = url
    }
}
