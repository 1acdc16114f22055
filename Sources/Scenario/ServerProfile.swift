import SquallCore

/// What an outside server (`squall run --upstream`) serves and allows, so that the runner can tell which scenarios
/// it can judge truthfully (`ScenarioNeeds`) and drive the client and events against it. Values only;
/// `ServerProfileLoader` reads them strictly from JSON (`--server-profile FILE`, or inline as a scenario's
/// `server.upstream` object); `Scenarios/server-profile.schema.json` describes the format.
///
/// Everything is optional: an empty profile says nothing about the server, and every scenario that needs to know
/// something is skipped with what it needs.
///
/// ```json
/// {"url": "https://uploads.example.com/files", "interop": [3, 5, 6], "retention": "1h",
///  "limits": {"max-size": "4GiB", "max-append-size": "64MiB"},
///  "auth": {"token-url": {"url": "https://uploads.example.com/oauth/token", "method": "POST",
///           "body": "grant_type=client_credentials", "content-type": "application/x-www-form-urlencoded",
///           "token-path": "access_token"}},
///  "tokens": {"ttl": "10m", "expire": {"command": ["./expire-tokens.sh"]}},
///  "restart": {"command": ["docker", "restart", "uploads"]},
///  "introspection": {"url": "http://127.0.0.1:9000/admin/uploads/{id}", "returns": "sha256"}}
/// ```
public struct ServerProfile: Sendable, Hashable {
    /// The creation URL (`https://host/path`); `--upstream` or `server.upstream` give it otherwise.
    public var url: String?
    /// The interop versions the server serves resumably (3 … 10); empty: not known.
    public var interop: [Int] = []
    /// Whether the server offers resumable uploads at all; nil: not known (`interop` non-empty says it does).
    public var resumable: Bool?
    /// Whether the server sends progress 104s (`Upload-Offset`) while a body streams; nil: not known.
    public var progress104: Bool?
    /// How long a completed upload stays answerable (a HEAD after its final response); nil: not kept, or not
    /// known (interop 3 to 6 do not require it).
    public var retention: Duration?
    public var maxSize: Int64?
    public var maxAppendSize: Int64?
    /// How long an incomplete upload lives.
    public var maxAge: Duration?
    /// How the client gets a bearer token; nil: the server needs none (or it is not known).
    public var auth: TokenRecipe?
    /// How long tokens live, when they expire by themselves.
    public var tokenTTL: Duration?
    /// How to expire every token issued so far (the `expire-tokens` event).
    public var expireTokens: ProfileAction?
    /// How to restart the server (the `restart-server` event), keeping its uploads.
    public var restart: ProfileAction?
    /// How to read an upload's state on the server (`server-objects-intact`, `server-resource-ids-recorded`).
    public var introspection: Introspection?

    public init() {}

    /// The versions served, as the client offers them: the newest first.
    public var newestInterop: Int? { interop.max() }

    /// Whether the profile says the server serves resumable uploads.
    public var servesResumably: Bool { resumable ?? !interop.isEmpty }
}

/// Something the runner does to the outside server: run a command, or send a request.
public enum ProfileAction: Sendable, Hashable {
    /// Argument vector, run without a shell; it must exit 0.
    case command([String])
    /// `method url` with an empty body; it must answer 2xx.
    case request(method: String, url: String)
}

/// How to read one upload's state: a URL template with `{id}` (the upload resource's last path segment), `{path}`
/// (its path) or `{resource-id}` (the `x-server-resource-id` the job recorded), answering the object's bytes, its
/// SHA-256 (hex, or base64), or JSON holding the SHA-256 at `sha256Path`.
public struct Introspection: Sendable, Hashable {
    public enum Returns: String, Sendable, Hashable, CaseIterable {
        /// The stored bytes: the runner hashes them.
        case object
        /// The SHA-256, as 64 hex digits or base64, alone in the body.
        case sha256
        /// A JSON object with the SHA-256 (hex or base64) at `sha256Path`.
        case json
    }

    public var url: String
    public var returns: Returns
    public var sha256Path = "sha256"

    public init(url: String, returns: Returns) {
        self.url = url
        self.returns = returns
    }

    /// The template's variables.
    public static let variables = ["{id}", "{path}", "{resource-id}"]
}
