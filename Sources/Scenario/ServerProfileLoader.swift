import SquallCore

/// Reads server profiles (`ServerProfile`) strictly, like scenario files: JSON per RFC 8259 with no key twice,
/// unknown keys and wrong types reported with the JSON path, line and column, every mistake collected.
public enum ServerProfileLoader {
    static let topKeys = [
        "url", "interop", "resumable", "progress-104", "retention", "limits", "auth", "tokens", "restart",
        "introspection",
    ]
    static let limitKeys = ["max-size", "max-append-size", "max-age"]
    static let tokenRequestKeys = ["url", "method", "body", "content-type", "token-path", "headers"]

    /// The profile in `bytes` (the contents of `file`, which only names it in errors), or every mistake in it.
    public static func load(_ bytes: [UInt8], file: String?) -> Result<ServerProfile, ScenarioErrors> {
        var diagnostics = Diagnostics(file: file)
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: bytes)
        } catch {
            diagnostics.report(ScenarioError(error))
            return .failure(ScenarioErrors(diagnostics.errors))
        }
        let profile = read(document.value, path: "", into: &diagnostics)
        guard let profile, diagnostics.errors.isEmpty else {
            return .failure(ScenarioErrors(diagnostics.errors.map { ScenarioLoader.located($0, in: document) }))
        }
        return .success(profile)
    }

    /// The profile at `path` of a document (a scenario's `server.upstream` object, or a whole profile file).
    static func read(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> ServerProfile? {
        guard let object = ObjectReader(value, path: path, expected: "a server profile object", into: &diagnostics)
        else { return nil }
        object.rejectUnknownKeys(topKeys, context: "a server profile", into: &diagnostics)
        var profile = ServerProfile()
        let before = diagnostics.errors.count
        profile.url = object.read("url", into: &diagnostics, ScenarioLoader.httpURL)
        profile.interop = object.read("interop", into: &diagnostics, ScenarioLoader.interopList) ?? []
        profile.resumable = object.read("resumable", into: &diagnostics, JSONValue.bool)
        profile.progress104 = object.read("progress-104", into: &diagnostics, JSONValue.bool)
        profile.retention = object.read("retention", into: &diagnostics, retention) ?? nil
        if let limits = object.fields["limits"],
            let reader = ObjectReader(
                limits, path: object.path("limits"), expected: "an object of limits", into: &diagnostics)
        {
            reader.rejectUnknownKeys(limitKeys, context: "limits", into: &diagnostics)
            profile.maxSize = reader.read("max-size", into: &diagnostics, JSONValue.size)
            profile.maxAppendSize = reader.read("max-append-size", into: &diagnostics, JSONValue.size)
            profile.maxAge = reader.read("max-age", into: &diagnostics, JSONValue.duration)
        }
        profile.auth = object.fields["auth"].flatMap { readAuth($0, path: object.path("auth"), into: &diagnostics) }
        if let tokens = object.fields["tokens"],
            let reader = ObjectReader(tokens, path: object.path("tokens"), expected: "an object", into: &diagnostics)
        {
            reader.rejectUnknownKeys(["ttl", "expire"], context: "tokens", into: &diagnostics)
            profile.tokenTTL = reader.read("ttl", into: &diagnostics, JSONValue.duration)
            profile.expireTokens = reader.fields["expire"].flatMap {
                readAction($0, path: reader.path("expire"), into: &diagnostics)
            }
        }
        profile.restart = object.fields["restart"].flatMap {
            readAction($0, path: object.path("restart"), into: &diagnostics)
        }
        profile.introspection = object.fields["introspection"].flatMap {
            readIntrospection($0, path: object.path("introspection"), into: &diagnostics)
        }
        return diagnostics.errors.count == before ? profile : nil
    }

    /// `"1h"` (completed uploads answerable that long) or `false` (not kept).
    private static func retention(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Duration? {
        if case .bool(false) = value { return nil }
        guard case .string = value else {
            throw JSONValue.wrongType(value, path, "a duration such as \"1h\", or false (completed uploads not kept)")
        }
        return try JSONValue.duration(value, path)
    }

    /// `"none"`, `{"token": T}`, `{"token-url": {…}}` or `{"command": [...]}`.
    private static func readAuth(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> TokenRecipe?
    {
        if case .string("none") = value { return nil }
        let expected = "\"none\", {\"token\": T}, {\"token-url\": {…}} or {\"command\": [ARGUMENT, …]}"
        guard let object = ObjectReader(value, path: path, expected: expected, into: &diagnostics) else { return nil }
        let kinds = ["token", "token-url", "command"]
        object.rejectUnknownKeys(kinds, context: "auth", into: &diagnostics)
        let given = kinds.filter { object.fields[$0] != nil }
        guard given.count == 1, let kind = given.first else {
            diagnostics.report(.invalidValue, path: path, "expected exactly one of token, token-url, command")
            return nil
        }
        switch kind {
        case "token":
            return object.read("token", into: &diagnostics, ScenarioLoader.nonEmptyString).map(TokenRecipe.fixed)
        case "command":
            return object.read("command", into: &diagnostics, arguments).map(TokenRecipe.command)
        default:
            return object.fields["token-url"].flatMap { value in
                readTokenRequest(value, path: object.path("token-url"), into: &diagnostics).map(TokenRecipe.endpoint)
            }
        }
    }

    private static func readTokenRequest(
        _ value: JSONValue, path: String, into diagnostics: inout Diagnostics
    ) -> TokenRequest? {
        guard let object = ObjectReader(value, path: path, expected: "a token request object", into: &diagnostics)
        else { return nil }
        object.rejectUnknownKeys(tokenRequestKeys, context: "token-url", into: &diagnostics)
        object.require("url", expected: "the token endpoint's URL", into: &diagnostics)
        guard let url = object.read("url", into: &diagnostics, ScenarioLoader.httpURL) else { return nil }
        var request = TokenRequest(url: url)
        request.method = object.read("method", into: &diagnostics, method) ?? request.method
        request.body = object.read("body", into: &diagnostics, JSONValue.string) ?? request.body
        request.contentType = object.read("content-type", into: &diagnostics, ScenarioLoader.nonEmptyString)
        request.tokenPath =
            object.read("token-path", into: &diagnostics, ScenarioLoader.nonEmptyString) ?? request.tokenPath
        request.headers = object.read("headers", into: &diagnostics, headers) ?? [:]
        return request
    }

    /// `{"command": [ARGUMENT, …]}` or `{"request": {"method": M, "url": U}}`.
    private static func readAction(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics)
        -> ProfileAction?
    {
        let expected = "{\"command\": [ARGUMENT, …]} or {\"request\": {\"method\": M, \"url\": U}}"
        guard let object = ObjectReader(value, path: path, expected: expected, into: &diagnostics) else { return nil }
        object.rejectUnknownKeys(["command", "request"], context: "an action", into: &diagnostics)
        if object.fields["command"] != nil, object.fields["request"] == nil {
            return object.read("command", into: &diagnostics, arguments).map(ProfileAction.command)
        }
        guard object.fields["command"] == nil, let request = object.fields["request"] else {
            diagnostics.report(.invalidValue, path: path, "expected exactly one of command, request")
            return nil
        }
        let place = object.path("request")
        guard let reader = ObjectReader(request, path: place, expected: "a request object", into: &diagnostics)
        else { return nil }
        reader.rejectUnknownKeys(["method", "url"], context: "a request", into: &diagnostics)
        reader.require("url", expected: "the URL to send the request to", into: &diagnostics)
        let method = reader.read("method", into: &diagnostics, method) ?? "POST"
        return reader.read("url", into: &diagnostics, ScenarioLoader.httpURL).map {
            ProfileAction.request(method: method, url: $0)
        }
    }

    private static func readIntrospection(
        _ value: JSONValue, path: String, into diagnostics: inout Diagnostics
    ) -> Introspection? {
        guard let object = ObjectReader(value, path: path, expected: "an introspection object", into: &diagnostics)
        else { return nil }
        object.rejectUnknownKeys(["url", "returns", "sha256-path"], context: "introspection", into: &diagnostics)
        object.require("url", expected: "a URL template with {id}, {path} or {resource-id}", into: &diagnostics)
        object.require("returns", expected: "object, sha256 or json", into: &diagnostics)
        let url = object.read("url", into: &diagnostics, template)
        let returns = object.read("returns", into: &diagnostics) { value, path throws(ScenarioError) in
            let names = Introspection.Returns.allCases.map(\.rawValue)
            return Introspection.Returns(rawValue: try JSONValue.name(value, path, in: names, what: "returns"))!
        }
        guard let url, let returns else { return nil }
        var introspection = Introspection(url: url, returns: returns)
        introspection.sha256Path =
            object.read("sha256-path", into: &diagnostics, ScenarioLoader.nonEmptyString) ?? introspection.sha256Path
        return introspection
    }

    private static func template(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        let text = try ScenarioLoader.httpURL(value, path)
        guard Introspection.variables.contains(where: { text.contains($0) }) else {
            throw ScenarioError(
                .invalidValue, path: path,
                "expected a URL template naming the upload with {id}, {path} or {resource-id}, found \"\(text)\"")
        }
        return text
    }

    /// A non-empty array of non-empty strings: a command's argument vector (run without a shell).
    private static func arguments(_ value: JSONValue, _ path: String) throws(ScenarioError) -> [String] {
        guard case .array(let items) = value, !items.isEmpty else {
            throw JSONValue.wrongType(
                value, path, "a non-empty array of arguments, such as [\"docker\", \"restart\", \"uploads\"]")
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            result.append(try ScenarioLoader.nonEmptyString(item, "\(path)[\(index)]"))
        }
        return result
    }

    /// An HTTP method token in capitals (`POST`, `GET`, …).
    private static func method(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        let text = try JSONValue.string(value, path)
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw ScenarioError(.invalidValue, path: path, "expected a method such as \"POST\", found \"\(text)\"")
        }
        return text
    }

    /// An object of header fields: names are tokens (RFC 9110 §5.1), values have no CR, LF or NUL.
    private static func headers(_ value: JSONValue, _ path: String) throws(ScenarioError) -> [String: String] {
        guard case .object(let fields) = value else { throw JSONValue.wrongType(value, path, "an object of fields") }
        var result: [String: String] = [:]
        for name in fields.keys.sorted() {
            let place = "\(path).\(name)"
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                throw ScenarioError(.invalidValue, path: place, "\"\(name)\" is not a header field name")
            }
            let text = try JSONValue.string(fields[name]!, place)
            guard !text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                throw ScenarioError(.invalidValue, path: place, "a field value cannot hold CR, LF or NUL")
            }
            result[name] = text
        }
        return result
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
