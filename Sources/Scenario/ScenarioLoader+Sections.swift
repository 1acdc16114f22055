import FaultEngine
import ResumableUpload
import SquallCore
import UploadJobs

/// The `server`, `client`, `assets` and `faults` sections.
extension ScenarioLoader {
    static let serverKeys = [
        "interop", "max-size", "max-append-size", "max-age", "token-ttl", "resumable", "progress-interval",
        "progress-limit", "progress-spacing", "upstream",
    ]
    static let clientKeys = [
        "interop", "retry-limit", "inflight-limit", "append-size", "resume-attempts", "developer-mode", "refresh-auth",
        "permanent-errors", "read-timeout", "http",
    ]
    static let assetKeys = ["name", "size", "count"]
    /// The client's job error codes (`permanent-errors`, `job-errors`).
    static let errorCodes = JobError.allCases.map(\.rawValue)

    static func readServer(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> ServerSpec? {
        guard let object = ObjectReader(value, path: path, expected: "a server object", into: &diagnostics) else {
            return nil
        }
        object.rejectUnknownKeys(serverKeys, context: "server", into: &diagnostics)
        var server = ServerSpec()
        server.interop = object.read("interop", into: &diagnostics, interopList) ?? server.interop
        server.maxSize = object.read("max-size", into: &diagnostics, JSONValue.size)
        server.maxAppendSize = object.read("max-append-size", into: &diagnostics, JSONValue.size)
        server.maxAge = object.read("max-age", into: &diagnostics, JSONValue.duration)
        server.tokenTTL = object.read("token-ttl", into: &diagnostics, JSONValue.duration)
        server.resumable = object.read("resumable", into: &diagnostics, JSONValue.bool) ?? server.resumable
        server.progressInterval =
            object.read("progress-interval", into: &diagnostics, JSONValue.size) ?? server.progressInterval
        server.progressLimit = object.read("progress-limit", into: &diagnostics, JSONValue.int(in: 0...1_000_000))
        server.progressSpacing =
            object.read("progress-spacing", into: &diagnostics, JSONValue.duration) ?? server.progressSpacing
        if case .object? = object.fields["upstream"] {
            let place = object.path("upstream")
            server.profile = ServerProfileLoader.read(object.fields["upstream"]!, path: place, into: &diagnostics)
            if let profile = server.profile, profile.url == nil {
                diagnostics.report(.missingKey, path: place + ".url", "missing; expected the upstream's URL")
            }
            server.upstream = server.profile?.url
        } else {
            server.upstream = object.read("upstream", into: &diagnostics, httpURL)
        }
        return server
    }

    static func readClient(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> ClientSpec? {
        guard let object = ObjectReader(value, path: path, expected: "a client object", into: &diagnostics) else {
            return nil
        }
        object.rejectUnknownKeys(clientKeys, context: "client", into: &diagnostics)
        var client = ClientSpec()
        if let interop = object.read("interop", into: &diagnostics, clientInterop) {
            client.interop = interop
            client.interopGiven = true
        }
        client.retryLimit =
            object.read("retry-limit", into: &diagnostics, JSONValue.int(in: 0...1000))
            ?? client.retryLimit
        client.inflightLimit =
            object.read("inflight-limit", into: &diagnostics, JSONValue.int(in: 1...1000))
            ?? client.inflightLimit
        client.appendSize = object.read("append-size", into: &diagnostics, JSONValue.size)
        client.resumeAttempts =
            object.read("resume-attempts", into: &diagnostics, JSONValue.int(in: 0...1000))
            ?? client.resumeAttempts
        client.developerMode = object.read("developer-mode", into: &diagnostics, JSONValue.bool) ?? client.developerMode
        client.refreshAuth = object.read("refresh-auth", into: &diagnostics, JSONValue.bool) ?? client.refreshAuth
        client.permanentErrors =
            object.read("permanent-errors", into: &diagnostics, permanentErrors) ?? client.permanentErrors
        client.readTimeout = object.read("read-timeout", into: &diagnostics, JSONValue.duration) ?? client.readTimeout
        if let http = object.read("http", into: &diagnostics, httpChoice) {
            client.http = http
            client.httpGiven = true
        }
        return client
    }

    static func readAssets(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> [AssetSpec]? {
        guard case .array(let items) = value else {
            diagnostics.report(JSONValue.wrongType(value, path, "an array of assets"))
            return nil
        }
        guard !items.isEmpty else {
            diagnostics.report(.invalidValue, path: path, "expected at least one asset, found an empty array")
            return nil
        }
        let assets = items.enumerated().map { index, item in
            readAsset(item, path: "\(path)[\(index)]", into: &diagnostics)
        }
        return assets.contains(nil) ? nil : assets.compactMap { $0 }
    }

    /// `{"name": "photo", "size": "3MiB", "count": 2}`; also the keys of an `add-assets` event.
    static func readAsset(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> AssetSpec? {
        guard let object = ObjectReader(value, path: path, expected: "an asset object", into: &diagnostics) else {
            return nil
        }
        object.rejectUnknownKeys(assetKeys, context: "an asset", into: &diagnostics)
        return readAssetFields(object, into: &diagnostics)
    }

    /// The `name`, `size` and `count` keys of `object`.
    static func readAssetFields(_ object: ObjectReader, into diagnostics: inout Diagnostics) -> AssetSpec? {
        object.require("name", expected: "an asset name", into: &diagnostics)
        object.require("size", expected: JSONValue.sizeExpected, into: &diagnostics)
        let name = object.read("name", into: &diagnostics, identifier)
        let size = object.read("size", into: &diagnostics, JSONValue.size)
        let count = object.read("count", into: &diagnostics, JSONValue.int(in: 1...10_000))
        guard let name, let size else { return nil }
        return AssetSpec(name: name, size: size, count: count ?? 1)
    }

    /// Each fault through `FaultRule`'s strict reader at `faults[i]`; names unique.
    static func readFaults(_ value: JSONValue, path: String, into diagnostics: inout Diagnostics) -> [FaultRule]? {
        guard case .array(let items) = value else {
            diagnostics.report(JSONValue.wrongType(value, path, "an array of faults"))
            return nil
        }
        var rules: [FaultRule] = []
        var seen: Set<String> = []
        for (index, item) in items.enumerated() {
            let place = "\(path)[\(index)]"
            guard let rule = diagnostics.attempt({ () throws(ScenarioError) in try decodeFault(item, path: place) })
            else { continue }
            guard seen.insert(rule.name).inserted else {
                diagnostics.report(.duplicate, path: "\(place).name", "fault name \"\(rule.name)\" is used twice")
                continue
            }
            rules.append(rule)
        }
        return rules.count == items.count ? rules : nil
    }

    private static func decodeFault(_ value: JSONValue, path: String) throws(ScenarioError) -> FaultRule {
        try faultVocabulary { () throws(FaultError) in try FaultRule(value, path: path) }
    }

    /// What `body` reads with the fault vocabulary, its `FaultError` as the scenario's error at the same path.
    static func faultVocabulary<T>(_ body: () throws(FaultError) -> T) throws(ScenarioError) -> T {
        do {
            return try body()
        } catch {
            throw ScenarioError(code(of: error.code), path: error.path, error.detail)
        }
    }

    private static func code(of code: FaultError.Code) -> ScenarioError.Code {
        switch code {
        case .syntax: .unreadable
        case .duplicateKey: .duplicate
        case .unknownKey, .unknownAttribute: .unknownKey
        case .missingKey: .missingKey
        case .wrongType: .wrongType
        case .unknownAction, .unknownTrigger, .unknownToxic: .unknownName
        case .invalidDuration, .invalidSize, .invalidValue: .invalidValue
        case .notApplicable: .invalidFault
        }
    }

    /// A list of interop versions, each an integer 3…10 or `"final"` (the unversioned protocol, kept as
    /// `InteropVersion.finalRawValue`).
    static func interopList(_ value: JSONValue, _ path: String) throws(ScenarioError) -> [Int] {
        guard case .array(let items) = value, !items.isEmpty else {
            throw JSONValue.wrongType(value, path, "a non-empty array of interop versions (3…10 or \"final\")")
        }
        var versions: [Int] = []
        for (index, item) in items.enumerated() {
            let version = try interop(item, "\(path)[\(index)]", "an interop version (3…10) or \"final\"")
            guard !versions.contains(version) else {
                throw ScenarioError(
                    .duplicate, path: "\(path)[\(index)]", "interop \(InteropVersion.word(version)) is listed twice")
            }
            versions.append(version)
        }
        return versions
    }

    private static func clientInterop(_ value: JSONValue, _ path: String) throws(ScenarioError) -> Int? {
        if case .string("none") = value { return nil }
        return try interop(value, path, "an interop version (3…10), \"final\" or \"none\"")
    }

    /// One interop version: an integer 3…10, or `"final"`.
    private static func interop(_ value: JSONValue, _ path: String, _ expected: String) throws(ScenarioError) -> Int {
        if case .string("final") = value { return InteropVersion.finalRawValue }
        guard case .integer = value else { throw JSONValue.wrongType(value, path, expected) }
        return Int(try JSONValue.integer(value, path, in: Self.interopRange))
    }

    /// `client.http`: `"h2"`, `"http/1.1"` or `"auto"`.
    private static func httpChoice(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        try JSONValue.name(value, path, in: ClientSpec.httpChoices, what: "HTTP choice")
    }

    private static func permanentErrors(_ value: JSONValue, _ path: String) throws(ScenarioError) -> [String] {
        guard case .array(let items) = value else { throw JSONValue.wrongType(value, path, "an array of error codes") }
        var codes: [String] = []
        for (index, item) in items.enumerated() {
            codes.append(try JSONValue.name(item, "\(path)[\(index)]", in: errorCodes, what: "error code"))
        }
        return codes
    }

    /// An `http://` or `https://` URL.
    static func httpURL(_ value: JSONValue, _ path: String) throws(ScenarioError) -> String {
        let text = try JSONValue.string(value, path)
        let rest = text.hasPrefix("https://") ? text.dropFirst(8) : text.hasPrefix("http://") ? text.dropFirst(7) : ""
        guard !rest.isEmpty else {
            throw ScenarioError(.invalidValue, path: path, "expected an http:// or https:// URL, found \"\(text)\"")
        }
        return text
    }

    /// The interop versions a scenario may name: every one implemented.
    static let interopRange =
        Int64(InteropVersion.implemented.lowerBound)...Int64(InteropVersion.implemented.upperBound)
}
