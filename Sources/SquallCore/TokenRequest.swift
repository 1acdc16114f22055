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
